package org.sluice.fleet;

/**
 * What the fleet store said about one hook. Every variant is a value; none is an error.
 *
 * <ul>
 *   <li>{@link Admitted}: charged and (if asked) claimed; settle {@link #claimToken()}.</li>
 *   <li>{@link Duplicate}: the event key is committed under another hook's id, possibly
 *       stored by another node; nothing was charged.</li>
 *   <li>{@link Pending}: another claim holds the key; retry after {@code retryAfterMs};
 *       nothing was charged.</li>
 *   <li>{@link RateLimited}: the tenant's fleet limit refused; nothing was claimed.</li>
 *   <li>{@link Fallback}: the store did not answer within the budget, failed, or the
 *       breaker is open: answer from this node alone. {@link #claimToken()} is non-null
 *       when a claim was sent and may have landed; settle it like an admitted one. The
 *       store may also fail one request alone (a key another writer changed): then
 *       {@code ERROR} with a null token, nothing of that request was written, and the
 *       other requests of its batch are answered as usual.</li>
 * </ul>
 */
public sealed interface FleetAnswer {

    /** The claim to settle with {@link FleetClient#settleCommitted} or {@link FleetClient#settleRelease}, or null. */
    default String claimToken() {
        return null;
    }

    /** Admitted. {@code claimToken} is null when no dedupe claim was asked for. */
    record Admitted(String claimToken) implements FleetAnswer {
    }

    /** The key is committed: {@code hookId} is the stored hook's id. */
    record Duplicate(String hookId) implements FleetAnswer {
    }

    /** The key is claimed by a hook not yet settled; it expires in {@code retryAfterMs}. */
    record Pending(long retryAfterMs) implements FleetAnswer {
    }

    /** Refused by the tenant's fleet bucket {@code scope}; admitted again after {@code waitMs}. */
    record RateLimited(Scope scope, long waitMs) implements FleetAnswer {
    }

    /** Answer this hook node-local. */
    record Fallback(Reason reason, String claimToken) implements FleetAnswer {
    }

    /** Which fleet bucket refused. */
    enum Scope {
        /** The tenant's hook bucket. */
        TENANT("tenant"),
        /** The tenant's byte bucket. */
        TENANT_BYTES("tenant_bytes");

        private final String label;

        Scope(String label) {
            this.label = label;
        }

        /** {@code tenant} or {@code tenant_bytes}, as in a 429 body. */
        public String label() {
            return label;
        }
    }

    /** Why an answer is node-local. */
    enum Reason {
        /** The breaker is open (or a probe is out): no store call was made. */
        BREAKER_OPEN("breaker_open"),
        /** The call exceeded {@code fleet.timeout_ms}. */
        TIMEOUT("timeout"),
        /** The call failed (connection refused or lost, error reply), or the store failed this request alone. */
        ERROR("error");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}

package org.sluice.edge.admission;

import java.util.List;
import org.sluice.core.QueueShares;
import org.sluice.edge.store.CommitResult;

/**
 * What {@link TenantGate#admit} answers for one hook: a closed set, read by the caller with
 * an exhaustive {@code switch} over {@link #kind()} (Java 17 has no pattern switch; the
 * {@code switch} expression over the enum is what makes the compiler find every reader when
 * a variant is added: one record here, one {@link Kind} constant).
 * <ul>
 *   <li>{@link Admitted}: commit the hook, then {@link Admitted#settle settle} it once with
 *       the commit's result (the queue share is given back, a fleet claim promoted or
 *       released);</li>
 *   <li>{@link Refused}: the tenant's quota or queue share refused (nothing is held);</li>
 *   <li>{@link Duplicate}: the key is already committed under {@code hookId};</li>
 *   <li>{@link Pending}: another node's claim holds the key; retry after {@code retryAfterMs}.</li>
 * </ul>
 * The RateLimit field values travel with the answers whose response carries them.
 */
public sealed interface Admission {

    /** The variant, for an exhaustive {@code switch}. */
    Kind kind();

    /** One constant per variant. */
    enum Kind { ADMITTED, REFUSED, DUPLICATE, PENDING }

    /** Refused by {@code refusal}; {@code rateLimit} is null when the tenant has no limit this node can read. */
    record Refused(Refusal refusal, RateLimitFields rateLimit) implements Admission {
        @Override
        public Kind kind() {
            return Kind.REFUSED;
        }
    }

    /** A duplicate of the committed hook {@code hookId}; nothing was charged. */
    record Duplicate(String hookId, RateLimitFields rateLimit) implements Admission {
        @Override
        public Kind kind() {
            return Kind.DUPLICATE;
        }
    }

    /** The key is claimed by a hook not yet settled (fleet dedupe); nothing was charged. */
    record Pending(long retryAfterMs) implements Admission {
        @Override
        public Kind kind() {
            return Kind.PENDING;
        }
    }

    /**
     * Admitted: the tenant's quota is charged and its queue share held until {@link #settle}.
     * Owned by the one thread that commits the hook; settled exactly once.
     */
    final class Admitted implements Admission {

        private final TenantAdmission gate;
        private final String tenant;
        /** The queue share held, or null when nothing was counted. */
        private final QueueShares.Lease lease;
        /** The fleet claim to settle, or null. */
        private final FleetGate.Claim claim;
        private final List<Refusal> shadowRefusals;
        private boolean settled;

        Admitted(TenantAdmission gate, String tenant, QueueShares.Lease lease, FleetGate.Claim claim,
                 List<Refusal> shadowRefusals) {
            this.gate = gate;
            this.tenant = tenant;
            this.lease = lease;
            this.claim = claim;
            this.shadowRefusals = shadowRefusals;
        }

        @Override
        public Kind kind() {
            return Kind.ADMITTED;
        }

        /**
         * The refusals shadow mode ({@code rate_limits.shadow}) let through: each is counted
         * as a refusal, and the hook goes on. Empty outside shadow mode.
         */
        public List<Refusal> shadowRefusals() {
            return shadowRefusals;
        }

        /**
         * Gives back what admission held, once the commit has answered: the queue share, and
         * the fleet claim (promoted under the hook's id when {@code result} is durable,
         * released otherwise). {@code result} is null when the commit failed or never
         * started. Never blocks (the fleet settle is only queued).
         *
         * @throws IllegalStateException on a second call
         */
        public void settle(CommitResult result) {
            if (settled) {
                throw new IllegalStateException("admission of a hook of tenant " + tenant + " settled twice");
            }
            settled = true;
            gate.release(lease);
            if (claim != null) {
                claim.settle(result);
            }
        }

        /** The tenant's RateLimit field values read now (null when it has none this node can read). */
        public RateLimitFields rateLimit() {
            return gate.rateLimit(tenant);
        }
    }
}

package org.sluice.edge.admission;

/**
 * The tenant's side of admission, after verification and the duplicate check: its quota
 * (hooks, then bytes), its queue share, its body limit and the RateLimit header fields.
 * Thread-safe; called from the worker stage. Refusals are values.
 */
public interface TenantGate {

    /** A refusal: which layer, and how long to wait in nanoseconds. */
    record Refusal(Scope scope, long waitNanos) {
    }

    /** The biggest body {@code tenant} may send. */
    long bodyLimit(String tenant);

    /** Charges one hook of {@code bytes}; null when admitted. */
    Refusal charge(String tenant, long bytes);

    /**
     * Counts one hook of {@code bytes} against the tenant's queue share.
     *
     * @return a lease to give back with {@link #release}, {@link #NO_LEASE} when the tenant has
     *     no queue limit, or a {@link Refusal} (scope {@link Scope#TENANT_OVERLOAD})
     */
    Object acquire(String tenant, long bytes);

    /** Gives back what {@link #acquire} counted; safe with {@link #NO_LEASE}. */
    void release(Object lease);

    /**
     * The {@code RateLimit-Policy} and {@code RateLimit} field values for a tenant under a
     * limit, or null when it has none.
     */
    String[] rateLimitHeaders(String tenant);

    /** What {@link #acquire} returns when nothing was counted and nothing refused. */
    Object NO_LEASE = new Object();
}

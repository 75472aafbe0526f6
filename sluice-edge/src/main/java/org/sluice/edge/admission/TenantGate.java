package org.sluice.edge.admission;

/**
 * The tenant's side of admission, after verification and the duplicate check: its quota
 * (hooks, then bytes), its queue share, its body limit and the RateLimit header fields.
 * Thread-safe; called from the worker stage. Refusals are values.
 */
public interface TenantGate {

    /** The biggest body {@code tenant} may send. */
    long bodyLimit(String tenant);

    /** Charges one hook of {@code bytes}; null when admitted. */
    Refusal charge(String tenant, long bytes);

    /**
     * Counts one hook of {@code bytes} against the tenant's queue share.
     *
     * @return a lease to give back with {@link #release} ({@link Lease#NONE} when the tenant
     *     has no queue limit), or a {@link Refusal} (scope {@link RefusalScope#TENANT_OVERLOAD})
     */
    ShareResult acquire(String tenant, long bytes);

    /** Gives back what {@link #acquire} counted; safe with {@link Lease#NONE}. */
    void release(Lease lease);

    /**
     * The {@code RateLimit-Policy} and {@code RateLimit} field values for a tenant under a
     * limit, or null when it has none.
     */
    String[] rateLimitHeaders(String tenant);
}

package org.sluice.core;

/**
 * The outcome of {@link TenantLimits#hit}: admitted (the shared {@link #ADMITTED}
 * constant, so the admitted path allocates nothing) or refused by one bucket with the
 * wait until a retry could succeed.
 */
public final class TenantDecision {

    /** Which of a tenant's buckets refused. */
    public enum Scope {
        /** The hook-count bucket ({@code rate}, {@code burst}). */
        TENANT("tenant"),
        /** The body-byte bucket ({@code bytes_per_second}, {@code burst_bytes}). */
        TENANT_BYTES("tenant_bytes");

        private final String wireName;

        Scope(String wireName) {
            this.wireName = wireName;
        }

        /** {@code tenant} or {@code tenant_bytes}. */
        public String wireName() {
            return wireName;
        }
    }

    /** Admitted. */
    public static final TenantDecision ADMITTED = new TenantDecision(null, 0L);

    private final Scope scope;
    private final long waitNanos;

    private TenantDecision(Scope scope, long waitNanos) {
        this.scope = scope;
        this.waitNanos = waitNanos;
    }

    /** A refusal by {@code scope}, retry in {@code waitNanos} (&gt;= 1). */
    public static TenantDecision refused(Scope scope, long waitNanos) {
        if (scope == null || waitNanos < 1) {
            throw new IllegalArgumentException("a refusal needs a scope and a wait of at least 1 ns, got "
                    + scope + ", " + waitNanos);
        }
        return new TenantDecision(scope, waitNanos);
    }

    public boolean admitted() {
        return scope == null;
    }

    /** The bucket that refused; null when admitted. */
    public Scope scope() {
        return scope;
    }

    /** Nanoseconds until a retry could be admitted; 0 when admitted. */
    public long waitNanos() {
        return waitNanos;
    }

    /** {@link #waitNanos()} rounded up to whole milliseconds (at least 1 for a refusal). */
    public long retryAfterMillis() {
        return (waitNanos + 999_999L) / 1_000_000L;
    }

    @Override
    public String toString() {
        return admitted() ? "admitted" : "refused(" + scope.wireName + ", " + waitNanos + " ns)";
    }
}

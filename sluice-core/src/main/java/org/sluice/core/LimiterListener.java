package org.sluice.core;

/**
 * Told what a {@link Limiter} or a {@link KeyedLimit} (any scope) decided, for metrics and logs
 * (sluice-micrometer's {@code LimiterMetrics} is one). Every method has an empty default,
 * so a listener overrides only what it needs.
 *
 * <p>Called on the calling thread, after the limiter's lock is released, once per charge
 * attempt: {@link #admitted} or {@link #refused}, then {@link #waited} when the caller is
 * made to wait (a blocking acquire before each sleep, a reservation whose permits are
 * usable only later). A listener must be thread-safe and quick, and must not throw: what
 * it throws reaches the caller of the limiter after the charge took effect. The key is
 * not passed, on purpose: a metric tagged by key grows without bound.
 */
public interface LimiterListener {

    /** The listener that does nothing: the default of both builders. */
    LimiterListener NONE = new LimiterListener() {
    };

    /** {@code permits} were charged (by a try, an acquire, a reservation). */
    default void admitted(long permits) {
    }

    /** A call for {@code permits} was refused, nothing charged; it would be admitted after {@code waitNanos}. */
    default void refused(long permits, long waitNanos) {
    }

    /** A caller waits {@code nanos}: a blocking acquire about to sleep, or a reservation's permits not yet usable. */
    default void waited(long nanos) {
    }

    /** A sweep of a {@link KeyedLimiter} deleted {@code rows} full rows (keys it no longer needs to hold). */
    default void swept(int rows) {
    }

    /**
     * A limit of fixed size (sluice-shm's {@code SharedLimiter}, whose table has a fixed
     * number of slots) gave a key's slot, still in debt, to a new key: the key it took
     * from starts full when it comes back.
     */
    default void evicted() {
    }

    /**
     * A charge met so much contention (sluice-shm's compare-and-swap retries ran out)
     * that it was admitted without being charged, on one of the limit's bandwidths.
     */
    default void contended() {
    }
}

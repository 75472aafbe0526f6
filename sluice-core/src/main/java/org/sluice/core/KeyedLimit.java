package org.sluice.core;

import java.util.List;

/**
 * A limit per key, whatever holds the buckets: the calls every scope answers alike, so a
 * service moves from one process ({@link KeyedLimiter}) to one host (sluice-shm's {@code
 * SharedLimiter}, buckets in a memory-mapped file every process maps) by changing the
 * line that builds it.
 *
 * <p>Every implementation holds each key to its {@link #bandwidths()}: over any span of
 * readings of length {@code d}, the permits admitted to one key are at most {@code
 * burst_i + rate_i x d} for every bandwidth {@code i} (within the scope's stated time
 * granularity); a refusal charges nothing.
 */
public interface KeyedLimit<K> {

    /**
     * Takes {@code permits} for {@code key}: 0 when admitted, else the wait in ns until
     * they would be (nothing charged).
     *
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the
     *     smallest burst of the bandwidths
     */
    long tryAcquire(K key, long permits);

    /**
     * {@link #tryAcquire(Object, long)}, writing into {@code probe} whether the permits
     * were admitted, the key's whole permits left, the wait and the time until the key's
     * bucket is full again. Returns {@code probe.admitted()}.
     */
    boolean tryAcquire(K key, long permits, Probe probe);

    /** Refills {@code key}'s bucket to full. */
    void reset(K key);

    /** The bandwidths every key is held to. */
    List<Limit> bandwidths();
}

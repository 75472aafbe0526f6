package org.sluice.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

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
 *
 * <p>The waiting calls, {@link #acquire} and {@link #acquireAsync}, have one default
 * built on {@link #tryAcquire(Object, long)}'s wait, measured on {@link #clock()} and
 * slept by {@link #sleeper()}, so every scope answers them alike; {@link KeyedLimiter}
 * answers them itself (its asynchronous acquire reserves).
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

    /**
     * Takes {@code permits} for {@code key}, waiting for them if need be: true once
     * admitted, false without waiting when the key's wait is longer than what is left of
     * {@code timeout} (nothing charged). The default asks {@link #tryAcquire(Object, long)},
     * sleeps the wait it answers on {@link #sleeper()} and asks again, measuring the
     * timeout on {@link #clock()}. Not fair: a caller that wakes competes with new ones.
     *
     * @throws InterruptedException when the thread is interrupted while it waits (nothing charged)
     * @throws IllegalArgumentException when {@code permits} could never be admitted, or
     *     {@code timeout} is negative
     */
    default boolean acquire(K key, long permits, Duration timeout) throws InterruptedException {
        long budget = Waits.budget(timeout);
        Objects.requireNonNull(key, "key");
        return Waits.acquire(maxWait -> tryAcquire(key, permits), budget, clock(), sleeper(), listener());
    }

    /**
     * {@link #acquire} without blocking a thread: a stage completed with true once the
     * permits are taken, or with false (nothing taken) as soon as the key's wait is longer
     * than what is left of {@code timeout}. The default asks {@link #tryAcquire(Object,
     * long)} at once, on the calling thread, and while refused asks again on {@code
     * scheduler} after each wait it answers; the permits are taken only by the call that
     * completes the stage, so cancelling the stage before then takes nothing. {@link
     * KeyedLimiter} instead reserves at the call (first come, first served).
     *
     * @throws IllegalArgumentException when {@code permits} could never be admitted, or
     *     {@code timeout} is negative
     */
    default CompletionStage<Boolean> acquireAsync(K key, long permits, Duration timeout, ScheduledExecutorService scheduler) {
        long budget = Waits.budget(timeout);
        Objects.requireNonNull(key, "key");
        return Waits.pollAsync(() -> tryAcquire(key, permits), budget, clock(), scheduler);
    }

    /** The clock this limit's waits are measured on; default {@link Clock#system()}. */
    default Clock clock() {
        return Clock.system();
    }

    /** How {@link #acquire} waits; default {@link Sleeper#system()}. */
    default Sleeper sleeper() {
        return Sleeper.system();
    }

    /**
     * Told this limit's decisions (the default {@link #acquire} tells it each wait before
     * it sleeps); default {@link LimiterListener#NONE}. Every scope takes one in its
     * builder.
     */
    default LimiterListener listener() {
        return LimiterListener.NONE;
    }

    /**
     * Replaces the bandwidths of every key of this live limit, converting each key's
     * state as {@code change} says, for every user of the limit (a process, a host's
     * processes, a fleet's nodes: the scope's). {@link KeyedLimiter}, sluice-shm's {@code
     * SharedLimiter} and sluice-fleet's {@code FleetLimiter} implement it; the default
     * throws.
     *
     * @throws UnsupportedOperationException when the implementation cannot change its limit live
     */
    default void replaceBandwidths(List<Limit> bandwidths, LimitChange change) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot change its bandwidths live");
    }
}

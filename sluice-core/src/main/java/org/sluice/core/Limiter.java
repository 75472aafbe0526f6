package org.sluice.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One exact in-memory rate limit, no keys: a single bucket of one or more bandwidths.
 *
 * <pre>
 * Limiter limiter = Limiter.builder()
 *     .bandwidth(Limit.of(100, 100))           // 100 per second, bursts of 100
 *     .bandwidth(Limit.of(1000 / 60.0, 1000))  // and 1,000 per minute
 *     .clock(clock)                            // optional, default Clock.system()
 *     .build();
 * long waitNanos = limiter.tryAcquire();       // 0 = admitted, else ns until it would be
 * long waitForFive = limiter.tryAcquire(5);    // five permits at once
 * Probe probe = new Probe();                   // reused: admitted, remaining and wait in one call
 * boolean admitted = limiter.tryAcquire(1, probe);
 * boolean gotThem = limiter.acquire(2, Duration.ofMillis(50)); // blocks at most 50 ms
 * long usableInNanos = limiter.reserve(3);     // taken now, usable after the wait
 * limiter.acquireAsync(1, Duration.ofSeconds(1), scheduler)  // completes on the scheduler
 *     .thenAccept(ok -> ...);
 * limiter.replaceBandwidths(List.of(Limit.of(200, 200)), LimitChange.KEEP_REMAINING);
 * </pre>
 *
 * <p>{@link KeyedLimiter} is the same limiter per key.
 *
 * <h2>Bandwidths</h2>
 * Each bandwidth is a {@link Limit}'s {@code rate} and {@code burst} (its byte and queue
 * fields are ignored here), kept as one GCRA theoretical arrival time ({@link Gcra}) with
 * emission interval {@code T_i} and tolerance {@code tau_i = burst_i x T_i}. A call of
 * {@code n} permits at reading {@code now} is admitted only if every bandwidth admits a
 * charge of {@code n x T_i}; then every bandwidth is charged. If any refuses, none is
 * charged and the answer is the largest of the bandwidths' waits: the earliest moment
 * at which all of them admit it (each bandwidth's wait only shrinks as time passes and
 * nothing is charged, so at the largest wait every one admits).
 *
 * <h2>Exactness</h2>
 * Over any span of readings of length {@code d}, the permits admitted are at most
 * {@code burst_i + rate_i x d} for every bandwidth {@code i} (with {@code rate_i = 1e9 /
 * T_i}): the GCRA bound, held per bandwidth because every admission charges every one.
 *
 * <h2>Cost</h2>
 * A call may take several permits. A cost larger than some bandwidth's {@code burst}
 * could never be admitted, so it is a programming error and throws {@link
 * IllegalArgumentException} (unlike {@link RateLimiter#tryAcquire(String, int)}, which
 * admits such a cost into a full bucket, as the byte buckets need).
 *
 * <h2>Waiting</h2>
 * {@link #acquire(long, Duration)} blocks until its permits are admitted or its timeout
 * would pass first, waiting through the builder's {@link Sleeper} and measuring on the
 * limiter's clock. {@link #reserve(long)} takes permits at once, whatever the debt, and
 * answers how long the caller must wait before using them. {@link #acquireAsync}
 * reserves when the wait fits in its timeout and completes its stage on the caller's
 * scheduler once the wait has passed (the permits are the caller's from the call on:
 * cancelling the stage does not give them back). The blocking acquire is not fair: a
 * blocked caller that wakes competes with new callers and may be refused again (it then
 * waits again, within its timeout).
 *
 * <h2>Changing the limit</h2>
 * {@link #replaceBandwidths} swaps the bandwidths of a live limiter, keeping its state
 * as the chosen {@link LimitChange} says, at one reading and under the lock: a call sees
 * either the old bandwidths and state or the new ones.
 *
 * <h2>Threads and memory</h2>
 * Thread-safe. The arrival times are read and written under one lock, so a call sees
 * and charges all bandwidths as one step; the lock is held for a few arithmetic
 * operations per bandwidth and never across the clock read. The clock is read before
 * the lock: a call whose reading is older than the last writer's is still exact, since
 * GCRA compares signed differences and a late reading only makes a charge harder. No
 * call allocates (but {@link #acquireAsync} when it must wait, and {@link
 * #replaceBandwidths}): the state is one {@code long[]} made at build time, the probe is
 * the caller's ({@link Probe}).
 */
public final class Limiter {

    private final Object lock = new Object();
    private final Clock clock;
    private final Sleeper sleeper;
    private final LimiterListener listener;
    @GuardedBy("lock")
    private Bands bands;
    /** One theoretical arrival time per bandwidth; a value at or before a reading is a full bandwidth. */
    @GuardedBy("lock")
    private long[] tats;

    private Limiter(Builder b) {
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.listener = b.listener;
        Bands first = new Bands(b.bandwidths);
        long start = clock.nanoTime();
        synchronized (lock) {
            this.bands = first;
            this.tats = new long[first.size()];
            Arrays.fill(tats, start); // full at the first reading
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Takes one permit: 0 when admitted, else the wait in ns (at least 1). */
    public long tryAcquire() {
        return charge(1L, 0L, null);
    }

    /**
     * Takes {@code permits} at once: 0 when admitted (charged on every bandwidth), else
     * the wait in ns until all bandwidths would admit them (nothing charged).
     *
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the
     *     smallest {@code burst} of the limiter's bandwidths (it could never be admitted)
     */
    public long tryAcquire(long permits) {
        return charge(permits, 0L, null);
    }

    /**
     * Takes {@code permits} like {@link #tryAcquire(long)} and writes into {@code probe}
     * whether they were admitted, the whole permits remaining after the call, the wait
     * and the time until the limiter is full again, all from the same reading and the
     * same step. Returns {@code probe.admitted()}. Allocates nothing.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(long)}
     */
    public boolean tryAcquire(long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return charge(permits, 0L, probe) == 0L;
    }

    /**
     * Takes {@code permits}, waiting for them if need be: true once admitted (charged on
     * every bandwidth), false without waiting at all when the limiter's wait is longer
     * than what is left of {@code timeout} (nothing charged). Waits go to the builder's
     * {@link Sleeper}, measured on its {@link Clock}.
     *
     * @throws InterruptedException when the thread is interrupted while it waits
     * @throws IllegalArgumentException as {@link #tryAcquire(long)}, or when {@code
     *     timeout} is negative
     */
    public boolean acquire(long permits, Duration timeout) throws InterruptedException {
        long budget = Waits.budget(timeout);
        return Waits.acquire(maxWait -> charge(permits, maxWait, null), budget, clock, sleeper, listener);
    }

    /**
     * Takes {@code permits} now, on every bandwidth, even into debt, and answers the
     * nanoseconds until they are the caller's to use (0 = now). Later calls queue behind
     * the reservation: a {@link #tryAcquire()} is refused until the debt is paid off.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(long)}
     */
    public long reserve(long permits) {
        return charge(permits, Long.MAX_VALUE, null);
    }

    /**
     * Takes {@code permits} when the limiter's wait for them is at most {@code timeout}
     * (a reservation, as {@link #reserve}) and completes the stage with true on {@code
     * scheduler} once that wait has passed, at once when there is none; otherwise the
     * stage is already complete with false and nothing is charged. The stage fails only
     * when the scheduler rejects the task (the permits then stay taken).
     *
     * @throws IllegalArgumentException as {@link #acquire(long, Duration)}
     */
    public CompletionStage<Boolean> acquireAsync(long permits, Duration timeout, ScheduledExecutorService scheduler) {
        long budget = Waits.budget(timeout);
        return Waits.acquireAsync(maxWait -> charge(permits, maxWait, null), budget, scheduler);
    }

    /**
     * Whole permits a call could take now: the smallest over the bandwidths. A snapshot;
     * use {@link #tryAcquire(long, Probe)} to take and learn in one step.
     */
    public long remaining() {
        long now = clock.nanoTime();
        synchronized (lock) {
            return bands.remaining(tats, 0, now);
        }
    }

    /** The bandwidths, in the order they were added (the latest ones after a {@link #replaceBandwidths}). */
    public List<Limit> bandwidths() {
        synchronized (lock) {
            return bands.limits;
        }
    }

    /**
     * Replaces the bandwidths of this live limiter, converting its state as {@code change}
     * says (see {@link LimitChange}) at one reading of the clock. A call after this one
     * returns is checked against the new bandwidths only.
     *
     * @throws IllegalStateException when {@code bandwidths} is empty
     */
    public void replaceBandwidths(List<Limit> bandwidths, LimitChange change) {
        Objects.requireNonNull(change, "change");
        Bands next = new Bands(checkedList(bandwidths));
        long now = clock.nanoTime();
        synchronized (lock) {
            long[] converted = new long[next.size()];
            next.convert(bands, tats, 0, converted, 0, now, change);
            tats = converted;
            bands = next;
        }
    }

    static List<Limit> checkedList(List<Limit> bandwidths) {
        Objects.requireNonNull(bandwidths, "bandwidths");
        for (Limit bw : bandwidths) {
            Objects.requireNonNull(bw, "bandwidth must not be null");
        }
        return bandwidths;
    }

    /** Charges {@code permits} when the wait is at most {@code maxWait}; answers the wait. */
    private long charge(long permits, long maxWait, Probe probe) {
        long now = clock.nanoTime();
        long wait;
        synchronized (lock) {
            Bands b = bands;
            b.checkPermits(permits);
            wait = b.charge(tats, 0, permits, maxWait, now);
            if (probe != null) {
                probe.set(wait == 0L, b.remaining(tats, 0, now), wait, b.resetNanos(tats, 0, now));
            }
        }
        return Waits.report(listener, permits, maxWait, wait);
    }

    /** Builds a {@link Limiter}; at least one {@link #bandwidth} is required. */
    public static final class Builder {
        private final List<Limit> bandwidths = new ArrayList<>();
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();
        private LimiterListener listener = LimiterListener.NONE;

        private Builder() {
        }

        /**
         * Adds a bandwidth: {@code limit}'s {@code rate} per second and {@code burst}. A
         * call is admitted only when every bandwidth admits it.
         */
        public Builder bandwidth(Limit limit) {
            bandwidths.add(Objects.requireNonNull(limit, "bandwidth must not be null"));
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /** How {@link Limiter#acquire} waits; default {@link Sleeper#system()}. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /** Told every decision, after the lock is released; default {@link LimiterListener#NONE}. */
        public Builder listener(LimiterListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        public Limiter build() {
            return new Limiter(this);
        }
    }
}

package org.sluice.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

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
 * </pre>
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
 * answers how long the caller must wait before using them. Neither is fair: a blocked
 * caller that wakes competes with new callers and may be refused again (it then waits
 * again, within its timeout).
 *
 * <h2>Threads and memory</h2>
 * Thread-safe. The arrival times are read and written under one lock, so a call sees
 * and charges all bandwidths as one step; the lock is held for a few arithmetic
 * operations per bandwidth and never across the clock read. The clock is read before
 * the lock: a call whose reading is older than the last writer's is still exact, since
 * GCRA compares signed differences and a late reading only makes a charge harder. No
 * call allocates: the state is one {@code long[]} made at build time, the probe is the
 * caller's ({@link Probe}).
 */
public final class Limiter {

    private final Object lock = new Object();
    private final List<Limit> bandwidths;
    private final Clock clock;
    private final Sleeper sleeper;
    private final long[] intervals;
    private final long[] tolerances;
    /** The smallest burst: the largest cost a call may ask for. */
    private final long maxPermits;
    /** One theoretical arrival time per bandwidth; a value at or before a reading is a full bandwidth. */
    @GuardedBy("lock")
    private final long[] tats;

    private Limiter(Builder b) {
        this.bandwidths = List.copyOf(b.bandwidths);
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        int n = bandwidths.size();
        this.intervals = new long[n];
        this.tolerances = new long[n];
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Limit bw = bandwidths.get(i);
            intervals[i] = bw.intervalNanos();
            tolerances[i] = bw.toleranceNanos();
            smallest = Math.min(smallest, bw.burst());
        }
        this.maxPermits = smallest;
        long start = clock.nanoTime();
        this.tats = new long[n];
        synchronized (lock) {
            Arrays.fill(tats, start); // full at the first reading
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Takes one permit: 0 when admitted, else the wait in ns (at least 1). */
    public long tryAcquire() {
        return charge(1L, null);
    }

    /**
     * Takes {@code permits} at once: 0 when admitted (charged on every bandwidth), else
     * the wait in ns until all bandwidths would admit them (nothing charged).
     *
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the
     *     smallest {@code burst} of the limiter's bandwidths (it could never be admitted)
     */
    public long tryAcquire(long permits) {
        return charge(checkPermits(permits), null);
    }

    /**
     * Takes {@code permits} like {@link #tryAcquire(long)} and writes into {@code probe}
     * whether they were admitted, the whole permits remaining after the call and the
     * wait, all from the same reading and the same step. Returns {@code
     * probe.admitted()}. Allocates nothing.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(long)}
     */
    public boolean tryAcquire(long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return charge(checkPermits(permits), probe) == 0L;
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
        checkPermits(permits);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        long budget = saturatedNanos(timeout);
        long start = clock.nanoTime();
        for (;;) {
            long wait = charge(permits, null);
            if (wait == 0L) {
                return true;
            }
            long left = budget - (clock.nanoTime() - start);
            if (wait > left) {
                return false;
            }
            sleeper.sleepNanos(wait);
        }
    }

    /**
     * Takes {@code permits} now, on every bandwidth, even into debt, and answers the
     * nanoseconds until they are the caller's to use (0 = now). Later calls queue behind
     * the reservation: a {@link #tryAcquire()} is refused until the debt is paid off.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(long)}
     */
    public long reserve(long permits) {
        checkPermits(permits);
        long now = clock.nanoTime();
        synchronized (lock) {
            long wait = 0L;
            for (int i = 0; i < tats.length; i++) {
                long next = Gcra.admittedTat(tats[i], now, Gcra.increment(intervals[i], permits), tolerances[i]);
                wait = Math.max(wait, next - now - tolerances[i]);
                tats[i] = next;
            }
            return wait;
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Whole permits a call could take now: the smallest over the bandwidths. A snapshot;
     * use {@link #tryAcquire(long, Probe)} to take and learn in one step.
     */
    public long remaining() {
        long now = clock.nanoTime();
        synchronized (lock) {
            return remainingLocked(now);
        }
    }

    /** The bandwidths, in the order they were added. */
    public List<Limit> bandwidths() {
        return bandwidths;
    }

    private long checkPermits(long permits) {
        if (permits < 1 || permits > maxPermits) {
            throw new IllegalArgumentException("permits must be from 1 to the smallest burst of the limiter's bandwidths ("
                    + maxPermits + "), got " + permits);
        }
        return permits;
    }

    private long charge(long permits, Probe probe) {
        long now = clock.nanoTime();
        synchronized (lock) {
            long wait = 0L;
            for (int i = 0; i < tats.length; i++) {
                // permits <= every burst, so the increment never exceeds the tolerance
                wait = Math.max(wait, Gcra.waitNanos(tats[i], now, Gcra.increment(intervals[i], permits), tolerances[i]));
            }
            if (wait == 0L) {
                for (int i = 0; i < tats.length; i++) {
                    tats[i] = Gcra.admittedTat(tats[i], now, Gcra.increment(intervals[i], permits), tolerances[i]);
                }
            }
            if (probe != null) {
                probe.set(wait == 0L, remainingLocked(now), wait);
            }
            return wait;
        }
    }

    @GuardedBy("lock")
    private long remainingLocked(long now) {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < tats.length; i++) {
            long debt = tats[i] - now;
            long room = tolerances[i] - (debt > 0 ? debt : 0L);
            least = Math.min(least, room <= 0 ? 0L : room / intervals[i]);
        }
        return least;
    }

    /** Builds a {@link Limiter}; at least one {@link #bandwidth} is required. */
    public static final class Builder {
        private final List<Limit> bandwidths = new ArrayList<>();
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();

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

        public Limiter build() {
            if (bandwidths.isEmpty()) {
                throw new IllegalStateException("at least one bandwidth is required, got none");
            }
            return new Limiter(this);
        }
    }
}

package org.sluice.core;

import java.time.Duration;
import java.util.Objects;

/**
 * An exact in-memory rate limiter over many keys, one {@link Limit} for all of them:
 * the library entry point of sluice-core.
 *
 * <pre>
 * RateLimiter limiter = RateLimiter.builder()
 *     .limit(Limit.of(100, 50))   // required
 *     .clock(clock)               // optional, default Clock.system()
 *     .build();
 * long waitNanos = limiter.tryAcquire("key");   // 0 = admitted, else ns until it would be
 * </pre>
 *
 * <p>From a full bucket exactly {@code burst} are admitted back to back, then one per
 * {@code round(1e9 / rate)} ns; a refusal is a wait, never an exception, and changes
 * nothing. Keys live in a {@link BucketTable}; full buckets are deleted by a sweep of
 * one shard per {@link #sweepTick()}, scheduled every 3.75 s by default on a shared
 * daemon thread that holds the limiter only weakly (an unused limiter is collected and
 * its schedule cancelled). Thread-safe; charges on known keys allocate nothing.
 */
public final class RateLimiter {

    /** Default time between sweep ticks: each of the 16 shards is swept once a minute. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMillis(3750);

    /** Counters since creation; {@code keys} is the number of rows present now. */
    public record Stats(long keys, long admitted, long denied, long swept) {
    }

    private final Limit limit;
    private final Clock clock;
    private final long interval;
    private final long tolerance;
    private final BucketTable table = new BucketTable();
    /** Admissions and refusals, counted per thread without an atomic add (see {@link Tally}). */
    private final Tally tally = new Tally(Tally.defaultSlots());

    private RateLimiter(Builder b) {
        this.limit = b.limit;
        this.clock = b.clock;
        this.interval = limit.intervalNanos();
        this.tolerance = limit.toleranceNanos();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Charges one unit to {@code key}: 0 when admitted, else the wait in ns (at least 1). */
    public long tryAcquire(String key) {
        return charge(key, interval);
    }

    /**
     * Charges {@code cost} units to {@code key}: 0 when admitted, else the wait in ns.
     * A cost above {@code burst} is admitted only into a full bucket and empties it.
     */
    public long tryAcquire(String key, int cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, got " + cost);
        }
        return charge(key, Gcra.increment(interval, cost));
    }

    private long charge(String key, long increment) {
        long wait = table.tryCharge(Objects.requireNonNull(key, "key"), increment, tolerance, clock.nanoTime());
        tally.count(wait == 0L ? Tally.ADMITTED : Tally.DENIED);
        return wait;
    }

    /** Units {@code key} could be admitted now, fractional; {@code burst} for an unknown key. */
    public double remaining(String key) {
        return table.remaining(Objects.requireNonNull(key, "key"), interval, tolerance, clock.nanoTime());
    }

    /** Refills {@code key} to full. */
    public void reset(String key) {
        table.reset(Objects.requireNonNull(key, "key"));
    }

    /**
     * Counters since creation. {@code admitted} and {@code denied} are exact for every
     * call that happens-before this one (a joined thread, a completed future, a latch);
     * calls still running may or may not be counted yet. {@code keys} is a moment's
     * snapshot under concurrency.
     */
    public Stats stats() {
        tally.reclaim();
        return new Stats(table.size(), tally.admitted(), tally.denied(), table.swept());
    }

    /**
     * Sweeps one shard of full buckets (all 16 in turn over 16 ticks); returns rows deleted.
     * Also frees the counting slots of threads that have ended (their counts are kept).
     */
    public int sweepTick() {
        tally.reclaim();
        return table.sweepNext(clock.nanoTime());
    }

    public Limit limit() {
        return limit;
    }

    /** The table behind this limiter (for tests in this package). */
    BucketTable table() {
        return table;
    }

    /** Builds a {@link RateLimiter}; {@link #limit} is required. */
    public static final class Builder {
        private Limit limit;
        private Clock clock = Clock.system();
        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

        private Builder() {
        }

        public Builder limit(Limit limit) {
            this.limit = Objects.requireNonNull(limit, "limit must not be null");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /** Time between sweep ticks on the shared sweeper thread; {@link Duration#ZERO} disables it. */
        public Builder sweepInterval(Duration sweepInterval) {
            Objects.requireNonNull(sweepInterval, "sweepInterval must not be null");
            if (sweepInterval.isNegative()) {
                throw new IllegalArgumentException("sweepInterval must be zero or positive, got " + sweepInterval);
            }
            this.sweepInterval = sweepInterval;
            return this;
        }

        public RateLimiter build() {
            if (limit == null) {
                throw new IllegalStateException("limit is required, got none");
            }
            RateLimiter limiter = new RateLimiter(this);
            if (!sweepInterval.isZero()) {
                LimiterSweeper.schedule(limiter, sweepInterval);
            }
            return limiter;
        }
    }
}

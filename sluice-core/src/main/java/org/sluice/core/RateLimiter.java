package org.sluice.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *
 * <h2>The refusal memo (one-unit charges)</h2>
 * A flood repeats one refused key. When {@link #tryAcquire(String)} is refused with a wait
 * {@code w} at reading {@code now}, the key's bucket has {@code tat = until - interval +
 * tolerance} with {@code until = now + w}, and at every reading {@code r < until} a
 * one-unit charge is refused with wait {@code until - r} (see {@link Gcra}). That stays
 * true while the key's tat does not move back: admissions only move it later (and none is
 * possible before {@code until}, for any cost), and a sweep deletes a row only when its
 * tat is at or before the sweep's reading, after which a charge starts from that reading
 * or later ({@link BucketTable}'s invariant 5). Only {@link #reset} moves a tat back.
 * So the calling thread keeps {@code (key, until, epoch)} in its counting slot ({@link
 * Tally}), {@code epoch} being {@link #resets} read before the table was, and a later call
 * of that thread with the same key (identity, then {@code equals}), a reading before
 * {@code until} and an unchanged {@link #resets} is refused from the memo, counted as
 * denied, without reading the table. Both answers are the table's: the same refusal and,
 * when no admission at a reading of {@code until} or later has landed meanwhile, the same
 * wait (if one has, on another thread, the memo's wait is the one the table gave before
 * it, a linearisation in which this call's reading came first).
 *
 * <p>Memory ordering: {@link #reset} deletes the row, then increments {@link #resets}
 * (volatile). A refusal that read the old {@code resets} may have read the row before the
 * reset; its memo carries the old epoch and is ignored once the increment is visible,
 * which it is to every call that the reset happens-before. A refusal that read the new
 * {@code resets} read the row after the deletion (the deletion happens-before the
 * increment, which happens-before that read of it, which precedes the table read in
 * program order), so its memo is true. Charges of several units neither
 * read nor write the memo.
 *
 * <h2>The key before the clock</h2>
 * A charge reads the key's hash (the {@code String}'s cached field) before the clock, then
 * the table. Where the clock is {@code System.nanoTime()} and the kernel reads the time
 * stamp counter behind a fence ({@code lfence; rdtsc}, as with {@code kvm-clock}), no later
 * instruction starts until every earlier load is back. Reading the key first puts its
 * cache miss before the fence, where it overlaps the previous charge's row, instead of
 * after it; the row's own miss comes after the fence and overlaps the next charge's key.
 * The order changes no answer: the reading is taken within the call either way.
 */
public final class RateLimiter {

    /** Default time between sweep ticks: each of the 16 shards is swept once a minute. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMillis(3750);

    private static final VarHandle RESETS;

    static {
        try {
            RESETS = MethodHandles.lookup().findVarHandle(RateLimiter.class, "resets", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Counters since creation; {@code keys} is the number of rows present now. */
    public record Stats(long keys, long admitted, long denied, long swept) {
    }

    private final Limit limit;
    private final Clock clock;
    private final long interval;
    private final long tolerance;
    private final BucketTable table = new BucketTable();
    /** Admissions and refusals, counted per thread without an atomic add, and each thread's refusal memo (see {@link Tally}). */
    private final Tally tally = new Tally(Tally.defaultSlots());
    /** Completed {@link #reset} calls: the epoch of a refusal memo (see the class comment). */
    private volatile long resets;

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
        int hash = Objects.requireNonNull(key, "key").hashCode(); // before the clock: see "The key before the clock"
        long now = clock.nanoTime();
        long epoch = resets; // before the table is read: see the class comment
        Tally.Slot s = tally.slot();
        if (s != null) {
            long remembered = Tally.recall(s, key, now, epoch);
            if (remembered != 0L) {
                tally.denied(s);
                return remembered;
            }
        }
        long wait = table.tryCharge(key, hash, interval, tolerance, now);
        if (wait == 0L) {
            tally.admitted(s);
        } else {
            tally.denied(s);
            if (s != null) {
                Tally.remember(s, key, now + wait, epoch);
            }
        }
        return wait;
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

    /**
     * Charges {@code cost} units to {@code key} like {@link #tryAcquire(String, int)} and
     * writes into {@code probe} whether they were admitted, the whole units {@code key}
     * has left after the call and the wait, all from the one charge (the room is what the
     * charge itself saw, not a second read). Returns {@code probe.admitted()}. Allocates
     * nothing; the refusal memo is neither read nor written.
     */
    public boolean tryAcquire(String key, int cost, Probe probe) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, got " + cost);
        }
        Objects.requireNonNull(probe, "probe");
        int hash = Objects.requireNonNull(key, "key").hashCode(); // before the clock, as in tryAcquire(String)
        long increment = Gcra.increment(interval, cost);
        long r = table.chargeWithRoom(key, hash, increment, tolerance, clock.nanoTime());
        if (r < 0) {
            tally.count(Tally.ADMITTED);
            long room = BucketShard.roomOf(r);
            probe.set(true, room / interval, 0L, tolerance - room);
            return true;
        }
        tally.count(Tally.DENIED);
        // refused with wait r: the room before it was increment - r (tolerance - r when oversized; see Gcra)
        long room = (increment > tolerance ? tolerance : increment) - r;
        probe.set(false, room > 0 ? room / interval : 0L, r, tolerance - room);
        return false;
    }

    private long charge(String key, long increment) {
        int hash = Objects.requireNonNull(key, "key").hashCode(); // before the clock, as in tryAcquire(String)
        long wait = table.tryCharge(key, hash, increment, tolerance, clock.nanoTime());
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
        RESETS.getAndAdd(this, 1L); // after the deletion: retires every refusal memo taken before it
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

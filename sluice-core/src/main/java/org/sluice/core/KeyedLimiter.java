package org.sluice.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An exact in-memory limit per key: for every key, the bucket of one or more bandwidths
 * a {@link Limiter} has, with every way of asking a {@code Limiter} offers.
 *
 * <pre>
 * KeyedLimiter&lt;String&gt; limiter = KeyedLimiter.&lt;String&gt;builder()
 *     .bandwidth(Limit.of(100, 100))            // 100 per second, bursts of 100
 *     .bandwidth(Limit.of(1000 / 60.0, 1000))   // and 1,000 per minute, per key
 *     .build();
 * long waitNanos = limiter.tryAcquire("tenant-a");         // 0 = admitted
 * Probe probe = new Probe();
 * boolean ok = limiter.tryAcquire("tenant-a", 5, probe);   // remaining, wait, reset
 * boolean got = limiter.acquire("tenant-a", 1, Duration.ofMillis(50));
 * long usableIn = limiter.reserve("tenant-a", 2);
 *
 * KeyedLimiter&lt;Long&gt; byId = KeyedLimiter.&lt;Long&gt;builder().bandwidth(Limit.of(10, 10)).build();
 * byId.tryAcquire(42L, 1);                  // the primitive overload: the key is not boxed
 * </pre>
 *
 * <h2>Keys</h2>
 * Any type {@code K}: keys are compared with {@code equals} and spread by {@code
 * hashCode}, except {@code byte[]}, compared and hashed by content (its row keeps a copy
 * made once, when the row is made, so the caller may reuse its array), and {@code
 * Long}, which is the same key as the primitive {@code long} of the overloads {@link
 * #tryAcquire(long, long)} and {@link #tryAcquire(long, long, Probe)}. Those overloads
 * exist because the hot path should allocate nothing: a call on an object the caller
 * already holds (a {@code String}, an id record, a {@code byte[]} read off the wire)
 * allocates nothing, but a numeric id passed as a {@code Long} is boxed at every call
 * beyond the small-value cache; the primitive calls keep it in a {@code long} all the
 * way into the table. A type key encoder is therefore not needed: any {@code K} with a
 * sound {@code equals} and {@code hashCode} is its own encoding.
 *
 * <h2>Semantics</h2>
 * Per key, exactly {@link Limiter}'s: a call of {@code n} permits is admitted only if
 * every bandwidth admits {@code n}, then all are charged; a refusal charges none and
 * makes no row. Over any span of readings of length {@code d}, the permits admitted to
 * one key are at most {@code burst_i + rate_i x d} for every bandwidth {@code i}. Keys
 * are independent. A key's row full on every bandwidth is the same as no row, and is
 * deleted by the sweep ({@link #sweepTick()}, one of the 64 shards per tick, every
 * {@link #DEFAULT_SWEEP_INTERVAL} on a shared daemon thread that holds the limiter only
 * weakly), so a flood of invented keys holds memory only while their buckets refill.
 *
 * <h2>Threads and memory</h2>
 * Thread-safe. Keys are spread over 64 shards, each behind its own lock (see {@code
 * KeyedTable}); a call holds its shard's lock for a few arithmetic operations per
 * bandwidth, never across the clock read or a wait. A call on a known key allocates
 * nothing; a new key's row costs its slot (and a copy of a {@code byte[]} key).
 * {@link #replaceBandwidths} converts one shard at a time: while it runs, a key of a
 * shard already converted is checked against the new bandwidths and one of a shard not
 * yet converted against the old, each consistently.
 */
public final class KeyedLimiter<K> implements KeyedLimit<K> {

    /** Default time between sweep ticks: each of the 64 shards is swept about once a minute. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMillis(60_000 / KeyedTable.SHARDS);

    private final Clock clock;
    private final Sleeper sleeper;
    private final LimiterListener listener;
    private final KeyedTable table;
    private final AtomicInteger sweepCursor = new AtomicInteger();
    private volatile List<Limit> bandwidths;

    private KeyedLimiter(Builder<K> b) {
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.listener = b.listener;
        Bands bands = new Bands(b.bandwidths);
        this.bandwidths = bands.limits;
        this.table = new KeyedTable(bands);
    }

    public static <K> Builder<K> builder() {
        return new Builder<>();
    }

    /** Takes one permit for {@code key}: 0 when admitted, else the wait in ns (at least 1). */
    public long tryAcquire(K key) {
        return charge(key, 1L, 0L, null);
    }

    /**
     * Takes {@code permits} for {@code key}: 0 when admitted (charged on every bandwidth),
     * else the wait in ns until all of the key's bandwidths would admit them (nothing
     * charged).
     *
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the
     *     smallest {@code burst} of the bandwidths (it could never be admitted)
     */
    @Override
    public long tryAcquire(K key, long permits) {
        return charge(key, permits, 0L, null);
    }

    /**
     * Takes {@code permits} for {@code key} like {@link #tryAcquire(Object, long)} and
     * writes into {@code probe} whether they were admitted, the key's whole permits left,
     * the wait and the time until the key's bucket is full again, from one reading and one
     * step. Returns {@code probe.admitted()}. Allocates nothing on a known key.
     */
    @Override
    public boolean tryAcquire(K key, long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return charge(key, permits, 0L, probe) == 0L;
    }

    /** {@link #tryAcquire(Object, long)} on a {@code long} key, never boxed. */
    public long tryAcquire(long key, long permits) {
        return chargeLong(key, permits, 0L, null);
    }

    /** {@link #tryAcquire(Object, long, Probe)} on a {@code long} key, never boxed. */
    public boolean tryAcquire(long key, long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        return chargeLong(key, permits, 0L, probe) == 0L;
    }

    /**
     * Takes {@code permits} for {@code key}, waiting for them if need be: true once
     * admitted, false without waiting when the key's wait is longer than what is left of
     * {@code timeout} (nothing charged). Waits go to the builder's {@link Sleeper},
     * measured on its {@link Clock}; not fair, as {@link Limiter#acquire}.
     *
     * @throws InterruptedException when the thread is interrupted while it waits (nothing charged)
     */
    @Override
    public boolean acquire(K key, long permits, Duration timeout) throws InterruptedException {
        long budget = Waits.budget(timeout);
        Objects.requireNonNull(key, "key");
        return Waits.acquire(maxWait -> charge(key, permits, maxWait, null), budget, clock, sleeper, listener);
    }

    /**
     * Takes {@code permits} for {@code key} now, even into debt, and answers the
     * nanoseconds until they are the caller's to use (0 = now); later calls on the key
     * queue behind the reservation.
     */
    public long reserve(K key, long permits) {
        return charge(key, permits, Long.MAX_VALUE, null);
    }

    /**
     * {@link Limiter#acquireAsync} for {@code key}: reserves when the key's wait is at
     * most {@code timeout} and completes the stage with true on {@code scheduler} once the
     * wait has passed; otherwise the stage is already complete with false, nothing charged.
     */
    @Override
    public CompletionStage<Boolean> acquireAsync(K key, long permits, Duration timeout, ScheduledExecutorService scheduler) {
        long budget = Waits.budget(timeout);
        Objects.requireNonNull(key, "key");
        return Waits.acquireAsync(maxWait -> charge(key, permits, maxWait, null), budget, scheduler);
    }

    /** Whole permits {@code key} could take now; the smallest burst for a key with no row. */
    public long remaining(K key) {
        long now = clock.nanoTime();
        if (key instanceof Long l) {
            long k = l;
            return table.shard(KeyedTable.hashOf(k)).remaining(null, k, KeyedTable.hashOf(k), now);
        }
        int hash = KeyedTable.hashOf(Objects.requireNonNull(key, "key"));
        return table.shard(hash).remaining(key, 0L, hash, now);
    }

    /** Refills {@code key}'s bucket to full on every bandwidth. */
    @Override
    public void reset(K key) {
        long now = clock.nanoTime();
        if (key instanceof Long l) {
            long k = l;
            table.shard(KeyedTable.hashOf(k)).reset(null, k, KeyedTable.hashOf(k), now);
            return;
        }
        int hash = KeyedTable.hashOf(Objects.requireNonNull(key, "key"));
        table.shard(hash).reset(key, 0L, hash, now);
    }

    /** The builder's clock. */
    @Override
    public Clock clock() {
        return clock;
    }

    /** The builder's sleeper. */
    @Override
    public Sleeper sleeper() {
        return sleeper;
    }

    /** The builder's listener. */
    @Override
    public LimiterListener listener() {
        return listener;
    }

    /** The bandwidths every key is held to (the latest ones after a {@link #replaceBandwidths}). */
    @Override
    public List<Limit> bandwidths() {
        return bandwidths;
    }

    /**
     * Replaces the bandwidths of every key of this live limiter, converting each key's
     * state as {@code change} says ({@link LimitChange}) at one reading of the clock.
     * Calls that start after this one returns see only the new bandwidths.
     *
     * @throws IllegalStateException when {@code bandwidths} is empty
     */
    @Override
    public void replaceBandwidths(List<Limit> bandwidths, LimitChange change) {
        Objects.requireNonNull(change, "change");
        Bands next = new Bands(Limiter.checkedList(bandwidths));
        synchronized (table) { // one replacement at a time, so shards end on the same bands
            this.bandwidths = next.limits;
            table.replace(next, clock.nanoTime(), change);
        }
    }

    /** Keys with a row now (full rows not yet swept included); a moment's snapshot. */
    public int keys() {
        return table.size();
    }

    /** How far rows sit from their home slots, summed (see {@code KeyedTable.displacement}); for tests. */
    long displacement() {
        return table.displacement();
    }

    /** Sweeps the next of the 64 shards, deleting the rows full now; returns how many. */
    public int sweepTick() {
        int rows = table.sweep(sweepCursor.getAndIncrement(), clock.nanoTime());
        if (rows > 0) {
            listener.swept(rows);
        }
        return rows;
    }

    private long charge(K key, long permits, long maxWait, Probe probe) {
        if (key instanceof Long l) {
            return chargeLong(l, permits, maxWait, probe);
        }
        int hash = KeyedTable.hashOf(Objects.requireNonNull(key, "key")); // before the clock, as RateLimiter does
        long wait = table.shard(hash).charge(key, 0L, hash, permits, maxWait, clock.nanoTime(), probe);
        return Waits.report(listener, permits, maxWait, wait);
    }

    private long chargeLong(long key, long permits, long maxWait, Probe probe) {
        int hash = KeyedTable.hashOf(key);
        long wait = table.shard(hash).charge(null, key, hash, permits, maxWait, clock.nanoTime(), probe);
        return Waits.report(listener, permits, maxWait, wait);
    }

    /** Builds a {@link KeyedLimiter}; at least one {@link #bandwidth} is required. */
    public static final class Builder<K> {
        private final List<Limit> bandwidths = new ArrayList<>();
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();
        private LimiterListener listener = LimiterListener.NONE;
        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

        private Builder() {
        }

        /** Adds a bandwidth every key is held to; a call is admitted only when all admit it. */
        public Builder<K> bandwidth(Limit limit) {
            bandwidths.add(Objects.requireNonNull(limit, "bandwidth must not be null"));
            return this;
        }

        public Builder<K> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /** How {@link KeyedLimiter#acquire} waits; default {@link Sleeper#system()}. */
        public Builder<K> sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /** Time between sweep ticks on the shared sweeper thread; {@link Duration#ZERO} disables it. */
        public Builder<K> sweepInterval(Duration sweepInterval) {
            Objects.requireNonNull(sweepInterval, "sweepInterval must not be null");
            if (sweepInterval.isNegative()) {
                throw new IllegalArgumentException("sweepInterval must be zero or positive, got " + sweepInterval);
            }
            this.sweepInterval = sweepInterval;
            return this;
        }

        /** Told every decision, after the shard's lock is released; default {@link LimiterListener#NONE}. */
        public Builder<K> listener(LimiterListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        public KeyedLimiter<K> build() {
            KeyedLimiter<K> limiter = new KeyedLimiter<>(this);
            if (!sweepInterval.isZero()) {
                LimiterSweeper.schedule(limiter, KeyedLimiter::sweepTick, sweepInterval);
            }
            return limiter;
        }
    }
}

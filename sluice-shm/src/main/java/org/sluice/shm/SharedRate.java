package org.sluice.shm;

import java.time.Duration;
import org.sluice.core.Clock;

/**
 * One token bucket per key, in a carve of a {@link SharedArena} that every process on
 * the host maps, so the limit holds however many processes check it.
 *
 * <p>A bucket holds up to {@code limit} tokens and refills continuously at {@code limit}
 * per {@code window}; there are no fixed windows and so no boundary at which a caller can
 * spend twice. {@code limit=100, window=60s} allows bursts of 100; {@code limit=10,
 * window=6s} is the same rate with bursts of 10.
 *
 * <p>Internally a bucket is a GCRA word ({@link BucketWord}): the emission interval is
 * {@code window / limit} rounded <em>up</em> to a whole microsecond (so the limit is never
 * exceeded) and the tolerance is {@code limit} intervals. Every method goes through
 * {@link SlotTable}; see there for slots, takeover and fail-open, and
 * {@code docs/shm.md} for the whole picture.
 *
 * <p>Thread-safe and lock-free; a check allocates nothing.
 */
public final class SharedRate {

    /** Counters and shape of a limiter; {@code keys} walks the table, so call it for a status page, not in a loop. */
    public record Stats(long limit, Duration window, int slots, long keys, long allowed, long denied, long evicted, long contended) {
    }

    /** The validated policy in microseconds. */
    record Policy(long limit, long windowNanos, long intervalMicros, long toleranceMicros, long maxCost) {

        static Policy of(long limit, Duration window) {
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be at least 1, got " + limit);
            }
            if (window == null || window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("window must be a positive duration, got " + window);
            }
            long windowNanos;
            try {
                windowNanos = window.toNanos();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("window must be at most " + Duration.ofNanos(Long.MAX_VALUE) + ", got " + window, e);
            }
            long windowMicros = windowNanos / 1000;
            if (windowMicros < limit) {
                throw new IllegalArgumentException("limit per window must be at most one per microsecond, got limit=" + limit
                        + " per window=" + window);
            }
            long interval = -Math.floorDiv(-windowMicros, limit); // ceiling
            if (interval > BucketWord.MAX_TOLERANCE_MICROS / limit) {
                throw new IllegalArgumentException("window must be at most " + Duration.ofNanos(BucketWord.MAX_TOLERANCE_MICROS * 1000)
                        + " (the longest a shared bucket can hold debt), got " + window);
            }
            // costs above maxCost would overflow cost x interval; they are oversized anyway
            return new Policy(limit, windowNanos, interval, interval * limit, BucketWord.PERIOD_MICROS / interval);
        }
    }

    private final String name;
    private final Policy policy;
    private final SlotTable table;
    private final KeyHash keyHash;
    private final Clock clock;

    SharedRate(String name, Policy policy, SlotTable table, KeyHash keyHash, Clock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.name = name;
        this.policy = policy;
        this.table = table;
        this.keyHash = keyHash;
        this.clock = clock;
    }

    // ------------------------------------------------------------------ spending

    /** Takes one token; true when the request is within the limit. */
    public boolean allow(String key) {
        return charge(keyHash.hash(key), 1);
    }

    /** Takes one token; true when the request is within the limit. */
    public boolean allow(byte[] key) {
        return charge(keyHash.hash(key), 1);
    }

    /**
     * Takes {@code cost} tokens; true when they were available. A cost above the limit
     * is admitted only into a full bucket and leaves it empty (as in {@code Gcra}).
     */
    public boolean allow(String key, long cost) {
        return charge(keyHash.hash(key), cost);
    }

    /** As {@link #allow(String, long)}. */
    public boolean allow(byte[] key, long cost) {
        return charge(keyHash.hash(key), cost);
    }

    private boolean charge(long hash, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, got " + cost);
        }
        long increment = cost > policy.maxCost() ? BucketWord.PERIOD_MICROS : cost * policy.intervalMicros();
        return table.update(hash, SlotTable.OP_CHARGE, increment, policy.toleranceMicros(), now()) == 0;
    }

    // ------------------------------------------------------------------ reading

    /** Tokens the key could spend now, fractional, between 0 and {@code limit}. Spends nothing. */
    public double remaining(String key) {
        return remaining(keyHash.hash(key));
    }

    /** As {@link #remaining(String)}. */
    public double remaining(byte[] key) {
        return remaining(keyHash.hash(key));
    }

    private double remaining(long hash) {
        long now = now();
        long tat = table.peekTat(hash, policy.toleranceMicros(), now);
        return org.sluice.core.Gcra.remaining(tat, now, policy.intervalMicros(), policy.toleranceMicros());
    }

    /** Seconds until one more request would be allowed, fractional; 0 when one is allowed now. For a Retry-After header, round up. */
    public double retryAfter(String key) {
        return retryAfter(keyHash.hash(key));
    }

    /** As {@link #retryAfter(String)}. */
    public double retryAfter(byte[] key) {
        return retryAfter(keyHash.hash(key));
    }

    private double retryAfter(long hash) {
        long now = now();
        long tat = table.peekTat(hash, policy.toleranceMicros(), now);
        long micros = org.sluice.core.Gcra.waitNanos(tat, now, policy.intervalMicros(), policy.toleranceMicros());
        return micros / 1e6;
    }

    // ------------------------------------------------------------------ administration

    /** Refills the key's bucket to full. */
    public void reset(String key) {
        table.update(keyHash.hash(key), SlotTable.OP_RESET, 0, policy.toleranceMicros(), now());
    }

    /** As {@link #reset(String)}. */
    public void reset(byte[] key) {
        table.update(keyHash.hash(key), SlotTable.OP_RESET, 0, policy.toleranceMicros(), now());
    }

    /** Gives the key's slot back (its bucket reads as full afterwards). Optional: full buckets are reclaimed on demand. */
    public void forget(String key) {
        table.update(keyHash.hash(key), SlotTable.OP_FORGET, 0, policy.toleranceMicros(), now());
    }

    /** As {@link #forget(String)}. */
    public void forget(byte[] key) {
        table.update(keyHash.hash(key), SlotTable.OP_FORGET, 0, policy.toleranceMicros(), now());
    }

    /** Counters shared by every process using this carve, and the number of live keys (walks the table). */
    public Stats stats() {
        return new Stats(policy.limit(), Duration.ofNanos(policy.windowNanos()), table.slots(), table.liveKeys(now()),
                table.counter(SlotTable.ALLOWED), table.counter(SlotTable.DENIED),
                table.counter(SlotTable.EVICTED), table.counter(SlotTable.CONTENDED));
    }

    /** Keys the table holds: the slots asked for, rounded up to a power of two (at least 8). */
    public int slots() {
        return table.slots();
    }

    public String name() {
        return name;
    }

    private long now() {
        return Math.floorDiv(clock.nanoTime(), 1000L);
    }

    SlotTable table() {
        return table;
    }

    long hash(String key) {
        return keyHash.hash(key);
    }

    @Override
    public String toString() {
        return "SharedRate['" + name + "', limit=" + policy.limit() + ", window=" + Duration.ofNanos(policy.windowNanos())
                + ", slots=" + table.slots() + "]";
    }
}

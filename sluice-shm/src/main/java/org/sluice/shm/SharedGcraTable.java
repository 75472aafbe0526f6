package org.sluice.shm;

/**
 * A shared table of GCRA buckets whose policy is passed on every call, so keys with
 * different limits (tenants on different plans) share one carve. This is the primitive
 * under host-scoped limits in the edge; {@link SharedRate} is the same table with one
 * fixed policy.
 *
 * <pre>{@code
 * SharedGcraTable gcra = arena.gcraTable("tenants", 16384);
 * long interval = Gcra.emissionIntervalNanos(50.0);          // 50 per second
 * long tolerance = Gcra.toleranceNanos(interval, 20);         // bursts of 20
 * long wait = gcra.tryCharge("tenant-7", interval, tolerance, clock.nanoTime());
 * if (wait > 0) { ... refuse, Retry-After = ceil(wait / 1e9) ... }
 * }</pre>
 *
 * <h2>Units</h2>
 * Arguments are nanoseconds, but a bucket word stores microseconds ({@link BucketWord}):
 * {@code now} is floored to a microsecond, {@code increment} and {@code tolerance} are
 * rounded to the nearest microsecond (an increment of at least 1 ns counts as at least
 * 1 us), and a returned wait is a whole number of microseconds in nanoseconds. Policies
 * whose increments are whole microseconds are therefore exact; others are within half a
 * microsecond per charge (0.5% at 10 000 per second). The tolerance may be at most
 * {@link #MAX_TOLERANCE_NANOS} (about 38 hours).
 *
 * <h2>Time</h2>
 * {@code now} must come from the same clock in every process: {@code System.nanoTime()}
 * (CLOCK_MONOTONIC on Linux, shared by every process on the host) or, in tests, clocks
 * that agree. A reading a little older than a stored time (another process charged in
 * between) never refills a bucket; see {@link BucketWord}.
 *
 * <p>Thread-safe and lock-free; a charge allocates nothing.
 */
public final class SharedGcraTable {

    /** The largest tolerance a bucket may carry, in nanoseconds (2^37 us, about 38.2 hours). */
    public static final long MAX_TOLERANCE_NANOS = BucketWord.MAX_TOLERANCE_MICROS * 1000;

    /** Counters shared by every process using this carve; {@code keys} walks the table. */
    public record Stats(int slots, long keys, long allowed, long denied, long evicted, long contended) {
    }

    private final String name;
    private final SlotTable table;
    private final KeyHash keyHash;

    SharedGcraTable(String name, SlotTable table, KeyHash keyHash) {
        this.name = name;
        this.table = table;
        this.keyHash = keyHash;
    }

    /**
     * Charges {@code incrementNanos} to the key's bucket at {@code nowNanos} under
     * tolerance {@code toleranceNanos}. Returns 0 when admitted (the bucket is charged),
     * else the nanoseconds until this charge would be admitted (nothing is charged).
     * Under contention heavy enough to exhaust the compare-and-swap retries it returns 0
     * uncharged and counts {@code contended}.
     */
    public long tryCharge(byte[] key, long incrementNanos, long toleranceNanos, long nowNanos) {
        return charge(keyHash.hash(key), incrementNanos, toleranceNanos, nowNanos);
    }

    /** As {@link #tryCharge(byte[], long, long, long)}, the key taken as UTF-8. */
    public long tryCharge(String key, long incrementNanos, long toleranceNanos, long nowNanos) {
        return charge(keyHash.hash(key), incrementNanos, toleranceNanos, nowNanos);
    }

    /** What {@link #tryCharge} would return now, without charging: 0, or the wait in nanoseconds. */
    public long waitNanos(String key, long incrementNanos, long toleranceNanos, long nowNanos) {
        return peek(keyHash.hash(key), incrementNanos, toleranceNanos, nowNanos);
    }

    /** As {@link #waitNanos(String, long, long, long)}. */
    public long waitNanos(byte[] key, long incrementNanos, long toleranceNanos, long nowNanos) {
        return peek(keyHash.hash(key), incrementNanos, toleranceNanos, nowNanos);
    }

    /** Gives the key's slot back; its bucket reads as full afterwards. */
    public void forget(String key) {
        table.update(keyHash.hash(key), SlotTable.OP_FORGET, 0, 0, 0);
    }

    /** As {@link #forget(String)}. */
    public void forget(byte[] key) {
        table.update(keyHash.hash(key), SlotTable.OP_FORGET, 0, 0, 0);
    }

    /** Counters; {@code keys} counts buckets in debt at {@code nowNanos} (walks the table). */
    public Stats stats(long nowNanos) {
        return new Stats(table.slots(), table.liveKeys(micros(nowNanos)), table.counter(SlotTable.ALLOWED),
                table.counter(SlotTable.DENIED), table.counter(SlotTable.EVICTED), table.counter(SlotTable.CONTENDED));
    }

    /** Keys the table holds, a power of two. */
    public int slots() {
        return table.slots();
    }

    public String name() {
        return name;
    }

    private long charge(long hash, long incrementNanos, long toleranceNanos, long nowNanos) {
        long inc = incrementMicros(incrementNanos);
        long tol = toleranceMicros(toleranceNanos, incrementNanos, inc);
        return table.update(hash, SlotTable.OP_CHARGE, inc, tol, micros(nowNanos)) * 1000;
    }

    private long peek(long hash, long incrementNanos, long toleranceNanos, long nowNanos) {
        long inc = incrementMicros(incrementNanos);
        long tol = toleranceMicros(toleranceNanos, incrementNanos, inc);
        long now = micros(nowNanos);
        return org.sluice.core.Gcra.waitNanos(table.peekTat(hash, tol, now), now, inc, tol) * 1000;
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000L);
    }

    /** An increment in nanoseconds as the table keeps it: the nearest microsecond, at least 1 when it was at least 1 ns. */
    static long incrementMicros(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("incrementNanos must be at least 0, got " + nanos);
        }
        if (nanos >= BucketWord.PERIOD_MICROS * 1000) {
            return BucketWord.PERIOD_MICROS; // larger than any tolerance: an oversized charge either way
        }
        long us = (nanos + 500) / 1000;
        return us == 0 && nanos > 0 ? 1 : us;
    }

    /** Rounded like the increment, and never below it when it was not below it in nanoseconds (rounding must not make a charge oversized). */
    static long toleranceMicros(long nanos, long incrementNanos, long incrementMicros) {
        if (nanos < 0 || nanos > MAX_TOLERANCE_NANOS) {
            throw new IllegalArgumentException("toleranceNanos must be between 0 and " + MAX_TOLERANCE_NANOS + ", got " + nanos);
        }
        long us = (nanos + 500) / 1000;
        return nanos >= incrementNanos && us < incrementMicros ? incrementMicros : us;
    }

    SlotTable table() {
        return table;
    }

    @Override
    public String toString() {
        return "SharedGcraTable['" + name + "', slots=" + table.slots() + "]";
    }
}

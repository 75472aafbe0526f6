package org.sluice.shm;

import java.util.List;
import java.util.Objects;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;

/**
 * sluice-core's {@link KeyedLimit} over shared memory: one limit per key for every
 * process on the host that maps the arena, from {@link SharedArena#limiter}.
 *
 * <pre>
 * KeyedLimit&lt;String&gt; perTenant = arena.limiter("tenants", 16384, Limit.of(100, 100), Clock.system());
 * // was: KeyedLimiter.&lt;String&gt;builder().bandwidth(Limit.of(100, 100)).build();
 * long wait = perTenant.tryAcquire("tenant-a", 1);
 * </pre>
 *
 * <p>One bandwidth: a key is one word of the mapped table, charged by one CAS across
 * processes, and several bandwidths would be several words no CAS can charge as one
 * step. Time is kept in whole microseconds (see {@link SharedGcraTable}): a limit whose
 * interval is a whole number of microseconds is exact, others are within half a
 * microsecond per permit. A probe's {@code remaining} and {@code resetNanos} are read
 * just after the charge, so another process's charge in between can only make them
 * smaller. The table's rules hold too: under contention heavy enough to exhaust the CAS
 * retries a call is admitted uncharged (counted as {@code contended}), and a key may be
 * evicted when its group of slots is full of keys in debt.
 *
 * <p>The waiting calls are {@link KeyedLimit}'s defaults: {@code acquire} sleeps the
 * wait {@code tryAcquire} answers and asks again, {@code acquireAsync} asks again on the
 * caller's scheduler; neither reserves. There is no {@code reserve}: a key's word holds a
 * debt of at most {@link SharedGcraTable#MAX_TOLERANCE_NANOS}, and a key in debt is what
 * the table's eviction rule protects, so unbounded reservations would pin slots.
 */
public final class SharedLimiter implements KeyedLimit<String> {

    private final SharedGcraTable table;
    private final Limit limit;
    private final Clock clock;
    private final Sleeper sleeper;
    private final long interval;
    private final long tolerance;

    SharedLimiter(SharedGcraTable table, Limit limit, Clock clock, Sleeper sleeper) {
        this.table = table;
        this.limit = Objects.requireNonNull(limit, "limit");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.interval = limit.intervalNanos();
        this.tolerance = limit.toleranceNanos();
        if (tolerance > SharedGcraTable.MAX_TOLERANCE_NANOS) {
            throw new IllegalArgumentException("limit's burst x interval must be at most " + SharedGcraTable.MAX_TOLERANCE_NANOS
                    + " ns in shared memory, got " + tolerance + " (" + limit + ")");
        }
    }

    @Override
    public long tryAcquire(String key, long permits) {
        return table.tryCharge(Objects.requireNonNull(key, "key"), increment(permits), tolerance, clock.nanoTime());
    }

    /** {@link #tryAcquire(String, long)} on a key's bytes (hashed as they are; no copy). */
    public long tryAcquire(byte[] key, long permits) {
        return table.tryCharge(Objects.requireNonNull(key, "key"), increment(permits), tolerance, clock.nanoTime());
    }

    @Override
    public boolean tryAcquire(String key, long permits, Probe probe) {
        Objects.requireNonNull(probe, "probe");
        long now = clock.nanoTime();
        long wait = table.tryCharge(Objects.requireNonNull(key, "key"), increment(permits), tolerance, now);
        long debt = table.debtNanos(key, tolerance, now);
        long room = tolerance - debt;
        probe.set(wait == 0L, room > 0 ? room / interval : 0L, wait, debt);
        return wait == 0L;
    }

    /** Gives the key's slot back: its bucket reads as full. */
    @Override
    public void reset(String key) {
        table.forget(Objects.requireNonNull(key, "key"));
    }

    @Override
    public List<Limit> bandwidths() {
        return List.of(limit);
    }

    /** The clock the limiter reads (and its waits are measured on). */
    @Override
    public Clock clock() {
        return clock;
    }

    /** How {@link #acquire} waits: the arena's {@code limiter(...)} sleeper. */
    @Override
    public Sleeper sleeper() {
        return sleeper;
    }

    private long increment(long permits) {
        if (permits < 1 || permits > limit.burst()) {
            throw new IllegalArgumentException("permits must be from 1 to the limit's burst (" + limit.burst() + "), got " + permits);
        }
        return interval * permits; // at most burst x interval, within the table's tolerance bound
    }

    @Override
    public String toString() {
        return "SharedLimiter['" + table.name() + "', " + limit + "]";
    }
}

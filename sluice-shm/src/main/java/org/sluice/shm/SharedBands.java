package org.sluice.shm;

import java.util.List;
import org.sluice.core.Clock;
import org.sluice.core.Gcra;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.Probe;

/**
 * The bandwidths of one {@link SharedLimiter} over their slot tables (one table per
 * bandwidth, a key at the same hash in each), and the one charge of several bandwidths:
 * look, then charge each by its own compare-and-swap, then undo on a refusal. The
 * algorithm and why it never over-admits are in {@link SharedLimiter}'s "A charge of
 * several bandwidths". One version of the limit (see its "A live change"): a key's words
 * carry the version's parity, and a word of the previous version is converted as read.
 * Immutable; thread-safe as the tables are.
 *
 * <p>Times are table microseconds: {@code now} is a reading floored to a microsecond,
 * waits are answered in microseconds. A call's increment and tolerance are rounded from
 * nanoseconds exactly as {@link SharedGcraTable} rounds them.
 */
final class SharedBands {

    final List<Limit> limits;
    /** The limit's version these bandwidths are (0: the builders', before any live change); its parity marks the words. */
    final long version;
    private final long parity;
    private final SlotTable[] tables;
    private final SlotTable.Conversion[] conversions;
    private final long[] intervalNs;
    private final long[] toleranceNs;
    /** The smallest burst: the largest cost a call may ask for. */
    private final long maxPermits;

    /** Version 0 with no record behind it (tests of the charge alone). */
    SharedBands(List<Limit> limits, SlotTable[] tables) {
        this(limits, tables, 0L, LimitChange.RESET, List.of(), null);
    }

    /**
     * Version {@code version} of a limit, made from {@code previous} by {@code change};
     * {@code record} (null in tests) is asked, when a word of the other parity turns up,
     * whether this version is still the current one.
     */
    SharedBands(List<Limit> limits, SlotTable[] tables, long version, LimitChange change, List<Limit> previous,
            LimitRecord record) {
        this.limits = List.copyOf(limits);
        this.version = version;
        this.parity = version & 1;
        int n = this.limits.size();
        if (n == 0) {
            throw new IllegalStateException("at least one bandwidth is required, got none");
        }
        if (n != tables.length) {
            throw new IllegalArgumentException(n + " bandwidths need as many tables, got " + tables.length);
        }
        this.tables = tables.clone();
        this.intervalNs = new long[n];
        this.toleranceNs = new long[n];
        this.conversions = new SlotTable.Conversion[n];
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Limit limit = this.limits.get(i);
            intervalNs[i] = limit.intervalNanos();
            toleranceNs[i] = limit.toleranceNanos();
            if (toleranceNs[i] > SharedGcraTable.MAX_TOLERANCE_NANOS) {
                throw new IllegalArgumentException("a bandwidth's burst x interval must be at most "
                        + SharedGcraTable.MAX_TOLERANCE_NANOS + " ns in shared memory, got " + toleranceNs[i] + " (" + limit + ")");
            }
            smallest = Math.min(smallest, limit.burst());
            conversions[i] = conversion(i, change, i < previous.size() ? previous.get(i) : null, record);
        }
        this.maxPermits = smallest;
    }

    /**
     * Bandwidth {@code i}'s reading of a word of the previous version, as sluice-core's
     * {@code Bands.convert} converts a row (matched by position, a bandwidth that had none
     * starts full, kept room rounded down and capped at the new burst), in table
     * microseconds; {@link SlotTable#STALE} when this version is no longer the current one.
     */
    private SlotTable.Conversion conversion(int i, LimitChange change, Limit before, LimitRecord record) {
        long tolerance = tolerance(i, 1, increment(i, 1));
        double scale;
        long oldTolerance;
        if (before == null || change == LimitChange.RESET) {
            scale = 0;
            oldTolerance = 0;
        } else {
            long oldIncrement = SharedGcraTable.incrementMicros(before.intervalNanos());
            oldTolerance = SharedGcraTable.toleranceMicros(before.toleranceNanos(), before.intervalNanos(), oldIncrement);
            scale = change == LimitChange.KEEP_REMAINING
                    ? (double) intervalNs[i] / before.intervalNanos()     // the same whole and fractional permits
                    : (double) toleranceNs[i] / before.toleranceNanos();  // the same share of the burst
        }
        return (word, now) -> {
            if (record != null && record.version() != version) {
                return SlotTable.STALE;
            }
            if (oldTolerance == 0) {
                return now; // starts full
            }
            long debt = BucketWord.tat(word, now, oldTolerance) - now;
            long oldRoom = Math.max(0L, oldTolerance - debt);
            long room = (long) Math.min((double) tolerance, Math.floor(oldRoom * scale));
            return now + (tolerance - room);
        };
    }

    /**
     * The hash a key has in these tables: the arena's hash with the fingerprint's lowest bit
     * set to the version's parity, and its upper 23 bits never all 0 (a word of 0 is empty).
     */
    long versioned(long hash) {
        long h = (hash >>> 41) == 0 ? hash | 1L << 63 : hash;
        return (h & ~(1L << BucketWord.TIME_BITS)) | parity << BucketWord.TIME_BITS;
    }

    /**
     * Converts every word of the previous version to this one, at {@code now} (us): the
     * walk of a live change, run under the arena's file lock.
     */
    void convertAll(long now) {
        for (int i = 0; i < tables.length; i++) {
            tables[i].convertAll(parity ^ 1, conversions[i], now);
        }
    }

    int size() {
        return tables.length;
    }

    SlotTable table(int i) {
        return tables[i];
    }

    void checkPermits(long permits) {
        if (permits < 1 || permits > maxPermits) {
            throw new IllegalArgumentException("permits must be from 1 to the smallest burst of the limiter's bandwidths ("
                    + maxPermits + "), got " + permits);
        }
    }

    /**
     * Charges {@code permits} to the key at {@code hash} on every bandwidth or on none, at
     * {@code now} (us): 0 when admitted, else the wait in us (nothing left charged, see
     * the class comment), or {@link SlotTable#STALE} when a live change made this version
     * stale (nothing charged: the caller reads the new version and asks again). {@code
     * clock} is read only by an undo that met another charge.
     */
    long charge(long hash, long permits, long now, Clock clock) {
        long key = versioned(hash);
        if (tables.length == 1) {
            long increment = increment(0, permits);
            return tables[0].update(key, SlotTable.OP_CHARGE, increment, tolerance(0, permits, increment), now, conversions[0]);
        }
        long wait = waitOf(key, permits, now); // look first: a refusal writes nothing
        if (wait > 0L) {
            tables[0].countDenied();
            return wait;
        }
        if (wait == SlotTable.STALE) {
            return wait;
        }
        wait = take(0, key, permits, now, clock);
        if (wait <= 0L) {
            return wait; // 0 admitted, or STALE (nothing left charged)
        }
        long again = waitOf(key, permits, now);
        return again == SlotTable.STALE ? wait : Math.max(wait, again);
    }

    /**
     * Charges bandwidths {@code i} and on, each by its own CAS: 0 when every one admitted,
     * else the wait (us) of the first that refused, or {@link SlotTable#STALE}, with the
     * ones from {@code i} on that this call charged undone. Recursion, not an array, keeps
     * the call allocation-free.
     */
    private long take(int i, long key, long permits, long now, Clock clock) {
        if (i == tables.length) {
            return 0L;
        }
        long increment = increment(i, permits);
        long tolerance = tolerance(i, permits, increment);
        long taken = tables[i].update(key, SlotTable.OP_TAKE, increment, tolerance, now, conversions[i]);
        if (taken > 0L || taken == SlotTable.STALE) {
            return taken; // refused, or stale: nothing written here
        }
        long rest = take(i + 1, key, permits, now, clock);
        if (rest != 0L && taken < 0L) { // taken == 0: admitted uncharged under contention, nothing to undo
            tables[i].refund(key, ~taken, increment, tolerance, clock);
        }
        return rest;
    }

    /** The wait (us) of {@code permits} over every bandwidth at {@code now}, read only; {@link SlotTable#STALE} when stale. */
    private long waitOf(long key, long permits, long now) {
        long wait = 0L;
        for (int i = 0; i < tables.length; i++) {
            long increment = increment(i, permits);
            long tolerance = tolerance(i, permits, increment);
            long tat = tables[i].peekTat(key, tolerance, now, conversions[i]);
            if (tat == SlotTable.STALE) {
                return tat;
            }
            wait = Math.max(wait, Gcra.waitNanos(tat, now, increment, tolerance));
        }
        return wait;
    }

    /** Bandwidth {@code i}'s debt in us at {@code now} for the key at {@code hash} (0 when full, or when a change made this version stale), read only. */
    long debt(int i, long hash, long now) {
        long tolerance = tolerance(i, 1, increment(i, 1));
        long tat = tables[i].peekTat(versioned(hash), tolerance, now, conversions[i]);
        return tat == SlotTable.STALE ? 0L : Math.max(0L, tat - now);
    }

    /** Writes the probe: the fewest whole permits left and the longest time to full, read at {@code now}. */
    void answer(Probe probe, long hash, long now, long waitNs) {
        long remaining = Long.MAX_VALUE;
        long reset = 0L;
        for (int i = 0; i < tables.length; i++) {
            long debt = debt(i, hash, now) * 1000;
            long room = toleranceNs[i] - debt;
            remaining = Math.min(remaining, room > 0 ? room / intervalNs[i] : 0L);
            reset = Math.max(reset, debt);
        }
        probe.set(waitNs == 0L, remaining, waitNs, reset);
    }

    /** Gives the key's words back on every bandwidth: it reads as full. */
    void forget(long hash) {
        long key = versioned(hash);
        for (int i = 0; i < tables.length; i++) {
            tables[i].update(key, SlotTable.OP_FORGET, 0, 0, 0, conversions[i]);
        }
    }

    /** Bandwidth {@code i}'s increment for {@code permits}, in table microseconds, rounded as {@link SharedGcraTable} rounds it. */
    private long increment(int i, long permits) {
        return SharedGcraTable.incrementMicros(intervalNs[i] * permits); // at most the tolerance: no overflow
    }

    private long tolerance(int i, long permits, long incrementMicros) {
        return SharedGcraTable.toleranceMicros(toleranceNs[i], intervalNs[i] * permits, incrementMicros);
    }
}

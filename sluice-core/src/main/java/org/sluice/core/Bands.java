package org.sluice.core;

import java.util.List;

/**
 * The bandwidths of one limit as GCRA constants, and the one piece of arithmetic every
 * limiter of several bandwidths runs over them: {@link Limiter} on its one row, {@link
 * KeyedLimiter} on each key's. A row is {@code n} theoretical arrival times side by side
 * in a {@code long[]} from an offset, one per bandwidth in the order they were added.
 * Immutable; the caller holds whatever lock guards the row.
 *
 * <p>A charge of {@code p} permits at reading {@code now} asks every bandwidth {@code i}
 * for {@code p x T_i}; the call's wait is the largest of theirs (each shrinks as time
 * passes and nothing is charged, so at the largest one every bandwidth admits). The row
 * is charged, on every bandwidth, only when that wait is at most the caller's {@code
 * maxWait}: 0 for a try, a timeout for a reservation within it, {@code Long.MAX_VALUE}
 * for an unconditional reservation. {@code p} is at most the smallest burst, so no
 * increment exceeds its tolerance and the wait of a bandwidth is {@code max(0, max(0,
 * tat - now) + p x T - tau)}, the same formula whether the row is in debt or not.
 *
 * <p>The charge runs on every call, so its increment {@code p x T} is a multiply: {@link
 * Gcra#increment} divides to find out whether the product saturates, and that bound
 * ({@code Long.MAX_VALUE / 4 / T}, the largest cost that does not, {@link #maxCosts}) is
 * worked out once here instead of twice a bandwidth a call. (The JIT already folds the
 * division when the cost is a constant at the call site, as in {@code tryAcquire()}; this
 * is for the calls whose cost varies.)
 */
final class Bands {

    /** Where {@link Gcra#increment} saturates. */
    private static final long SATURATED = Long.MAX_VALUE / 4;

    final List<Limit> limits;
    final long[] intervals;
    final long[] tolerances;
    /** The smallest burst: the largest cost a call may ask for. */
    final long maxPermits;
    /** For each bandwidth, the largest cost whose increment {@code cost x T} does not saturate. */
    private final long[] maxCosts;

    Bands(List<Limit> limits) {
        if (limits.isEmpty()) {
            throw new IllegalStateException("at least one bandwidth is required, got none");
        }
        this.limits = List.copyOf(limits);
        int n = this.limits.size();
        this.intervals = new long[n];
        this.tolerances = new long[n];
        this.maxCosts = new long[n];
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Limit bw = this.limits.get(i);
            intervals[i] = bw.intervalNanos();
            tolerances[i] = bw.toleranceNanos();
            maxCosts[i] = SATURATED / intervals[i];
            smallest = Math.min(smallest, bw.burst());
        }
        this.maxPermits = smallest;
    }

    int size() {
        return intervals.length;
    }

    long checkPermits(long permits) {
        if (permits < 1 || permits > maxPermits) {
            throw new IllegalArgumentException("permits must be from 1 to the smallest burst of the limiter's bandwidths ("
                    + maxPermits + "), got " + permits);
        }
        return permits;
    }

    /**
     * The wait of {@code permits} against the row at {@code off}; charges every bandwidth
     * when it is at most {@code maxWait}, else writes nothing. Returns the wait either way.
     */
    long charge(long[] tats, int off, long permits, long maxWait, long now) {
        long wait = 0L;
        for (int i = 0; i < intervals.length; i++) {
            long debt = tats[off + i] - now;
            // never oversized (see the class comment), so Gcra.waitNanos reduces to this
            long over = (debt > 0 ? debt : 0L) + increment(i, permits) - tolerances[i];
            wait = over > wait ? over : wait;
        }
        if (wait <= maxWait) {
            for (int i = 0; i < intervals.length; i++) {
                long tat = tats[off + i];
                tats[off + i] = (tat - now > 0 ? tat : now) + increment(i, permits);
            }
        }
        return wait;
    }

    /** {@link Gcra#increment} of bandwidth {@code i}, without its division (tests hold it to the one in {@code Gcra}). */
    long increment(int i, long permits) {
        return permits > maxCosts[i] ? SATURATED : intervals[i] * permits;
    }

    /** Whole permits a call could take at {@code now}: the smallest over the bandwidths. */
    long remaining(long[] tats, int off, long now) {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < intervals.length; i++) {
            long debt = tats[off + i] - now;
            long room = tolerances[i] - (debt > 0 ? debt : 0L);
            least = Math.min(least, room <= 0 ? 0L : room / intervals[i]);
        }
        return least;
    }

    /** Nanoseconds from {@code now} until every bandwidth of the row is full again (0 = full now). */
    long resetNanos(long[] tats, int off, long now) {
        long most = 0L;
        for (int i = 0; i < intervals.length; i++) {
            most = Math.max(most, tats[off + i] - now);
        }
        return most;
    }

    /** True when every bandwidth of the row is full at {@code now}: the row is the same as no row. */
    boolean isFull(long[] tats, int off, long now) {
        for (int i = 0; i < intervals.length; i++) {
            if (!Gcra.isFull(tats[off + i], now)) {
                return false;
            }
        }
        return true;
    }

    /** Writes a full row at {@code base} (a reading, or a later time that keeps a tat from moving back). */
    void fill(long[] tats, int off, long base) {
        for (int i = 0; i < intervals.length; i++) {
            tats[off + i] = base;
        }
    }

    /**
     * Writes into {@code to} at {@code toOff} the row for these bandwidths that {@code
     * from}'s row at {@code fromOff} becomes under {@code change} at {@code now}.
     * Bandwidths are matched by position; one with no old counterpart starts full. Time
     * owed by reservations beyond a burst stays owed under every change but {@code RESET}.
     */
    void convert(Bands from, long[] fromTats, int fromOff, long[] to, int toOff, long now, LimitChange change) {
        for (int i = 0; i < intervals.length; i++) {
            if (i >= from.size() || change == LimitChange.RESET) {
                to[toOff + i] = now;
                continue;
            }
            long debt = Math.max(0L, fromTats[fromOff + i] - now);
            long oldRoom = Math.max(0L, from.tolerances[i] - debt);
            long owed = Math.max(0L, debt - from.tolerances[i]); // reservations past the burst stay owed, as time
            double scale = change == LimitChange.KEEP_REMAINING
                    ? (double) intervals[i] / from.intervals[i]     // the same whole and fractional permits
                    : (double) tolerances[i] / from.tolerances[i];  // the same share of the burst
            // rounded down, so a change never hands out a fraction of a permit the old limit did not hold
            long room = (long) Math.min((double) tolerances[i], Math.floor(oldRoom * scale));
            to[toOff + i] = now + (tolerances[i] - room) + owed;
        }
    }
}

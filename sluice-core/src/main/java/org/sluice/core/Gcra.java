package org.sluice.core;

/**
 * The generic cell rate algorithm: the one piece of arithmetic every Sluice limiter
 * (in-memory, shared-memory and Redis) agrees on. Pure functions over {@code long}
 * nanoseconds; no allocation, no state.
 *
 * <p>A bucket is a single number, its theoretical arrival time {@code tat}. With
 * emission interval {@code T} (ns per unit) and tolerance {@code tau = burst x T}, a
 * charge of {@code cost} units at {@code now}:
 * <pre>
 *   next = max(tat, now) + cost x T
 *   admitted  iff next - now &lt;= tau           (then tat := next)
 *   refused   otherwise, wait = next - now - tau  (tat unchanged)
 * </pre>
 * A bucket whose {@code tat <= now} is full and identical to no bucket at all.
 *
 * <p>Oversized charges ({@code cost x T > tau}, e.g. a body larger than {@code
 * burst_bytes}) are admitted only into a full bucket, and leave it exactly empty:
 * {@code tat := now + tau}; against a bucket that is not full the wait is the time
 * until it is full again ({@code tat - now}).
 *
 * <p>All comparisons use signed differences so that readings of a monotonic clock that
 * wrap or start negative behave.
 */
public final class Gcra {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private Gcra() {
    }

    /** {@code round(1e9 / ratePerSecond)} nanoseconds, at least 1. */
    public static long emissionIntervalNanos(double ratePerSecond) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("rate must be a finite number greater than 0, got " + ratePerSecond);
        }
        return Math.max(1L, Math.round(NANOS_PER_SECOND / ratePerSecond));
    }

    /** {@code burst x interval}, saturating at {@link Long#MAX_VALUE} / 4 so sums cannot overflow. */
    public static long toleranceNanos(long intervalNanos, long burst) {
        if (burst <= 0) {
            throw new IllegalArgumentException("burst must be at least 1, got " + burst);
        }
        long cap = Long.MAX_VALUE / 4;
        return intervalNanos > cap / burst ? cap : intervalNanos * burst;
    }

    /** {@code cost x interval}, saturating like {@link #toleranceNanos}. */
    public static long increment(long intervalNanos, long cost) {
        long cap = Long.MAX_VALUE / 4;
        return cost != 0 && intervalNanos > cap / cost ? cap : intervalNanos * cost;
    }

    /**
     * How long a charge of {@code increment} ns must wait at {@code now}: 0 when it is
     * admitted now, else a positive number of nanoseconds.
     */
    public static long waitNanos(long tat, long now, long increment, long tolerance) {
        long full = tat - now; // > 0: debt outstanding
        if (increment > tolerance) {
            return full > 0 ? full : 0L;
        }
        long next = (full > 0 ? full : 0L) + increment; // next - now
        long over = next - tolerance;
        return over > 0 ? over : 0L;
    }

    /**
     * The theoretical arrival time after admitting a charge of {@code increment} ns at
     * {@code now}. Only meaningful when {@link #waitNanos} returned 0.
     */
    public static long admittedTat(long tat, long now, long increment, long tolerance) {
        if (increment > tolerance) {
            return now + tolerance;
        }
        return (tat - now > 0 ? tat : now) + increment;
    }

    /**
     * Units that could be admitted now, fractional: {@code (tau - max(0, tat - now)) / T}.
     */
    public static double remaining(long tat, long now, long intervalNanos, long tolerance) {
        long debt = tat - now;
        long room = tolerance - (debt > 0 ? debt : 0L);
        return room <= 0 ? 0.0 : (double) room / intervalNanos;
    }

    /** True when a bucket with this {@code tat} is full at {@code now} (and may be dropped). */
    public static boolean isFull(long tat, long now) {
        return tat - now <= 0;
    }
}

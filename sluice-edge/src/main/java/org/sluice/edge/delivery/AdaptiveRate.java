package org.sluice.edge.delivery;

/**
 * {@code rate: {rate: adaptive, min, max}}: a destination whose pace follows its answers
 * ({@link AdaptivePace}), between {@code min} and {@code max} attempts per second. Both are
 * kept in thousandths of an attempt per second, so the pace's arithmetic is integer.
 *
 * @param minMilli the lowest pace, and the pace it starts at (thousandths of an attempt per second, at least 1)
 * @param maxMilli the highest pace (at least {@code minMilli}, at most {@link #MAX_MILLI})
 */
public record AdaptiveRate(long minMilli, long maxMilli) {

    /** The word in {@code rate.rate} that asks for it. */
    public static final String WORD = "adaptive";
    /** The keys of its mapping. */
    public static final java.util.List<String> KEYS = java.util.List.of("rate", "min", "max");
    /** Thousandths per attempt per second. */
    public static final long MILLI = 1000;
    /** The highest {@code max}: a million attempts per second. */
    public static final long MAX_MILLI = 1_000_000 * MILLI;

    public AdaptiveRate {
        if (minMilli < 1 || maxMilli < minMilli || maxMilli > MAX_MILLI) {
            throw new IllegalArgumentException("an adaptive rate needs 1 <= minMilli <= maxMilli <= " + MAX_MILLI
                    + ", got " + minMilli + " and " + maxMilli);
        }
    }

    /** {@code perSecond} in thousandths, rounded; -1 when it is not a number from 0.001 to a million. */
    public static long milli(double perSecond) {
        if (!(perSecond >= 0.001) || perSecond > MAX_MILLI / (double) MILLI) {
            return -1;
        }
        return Math.max(1, Math.round(perSecond * MILLI));
    }

    /** As written in {@code toString}s and the admin API: {@code 2.5}, {@code 500}. */
    static String perSecond(long milli) {
        return milli % MILLI == 0 ? Long.toString(milli / MILLI) : Double.toString(milli / (double) MILLI);
    }

    @Override
    public String toString() {
        return "adaptive " + perSecond(minMilli) + ".." + perSecond(maxMilli) + "/s";
    }
}

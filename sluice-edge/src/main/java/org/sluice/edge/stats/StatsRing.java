package org.sluice.edge.stats;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The last {@link #SECONDS} seconds of ingest outcomes, one counter per second per
 * {@link Series}: what {@code GET /v1/stats/timeseries} answers.
 *
 * <h2>Layout</h2>
 * One {@link AtomicLongArray} of {@code SECONDS x SERIES} cells; the cell of series
 * {@code s} in epoch second {@code t} is {@code (t mod SECONDS) * SERIES + s}. Each cell
 * holds a stamp and a count in one long, so a cell is never reset apart from its count:
 * <pre>
 *   63                         30 29                     0
 *   +----------------------------+------------------------+
 *   | epoch second (34 bits)     | count (30 bits)        |
 *   +----------------------------+------------------------+
 * </pre>
 *
 * <h2>Algorithm</h2>
 * {@link #add} reads the cell and compare-and-sets it to
 * <ul>
 *   <li>{@code count + 1} when the stamp is this second (a count at its 30-bit ceiling
 *       stays there);</li>
 *   <li>{@code (this second, 1)} when the stamp is older: the cell was last used
 *       {@code SECONDS} or more seconds ago and its count no longer counts;</li>
 *   <li>nothing when the stamp is newer: a thread that read the clock just before
 *       another one wrote the same slot a whole ring later drops its one event rather
 *       than erase newer ones (only possible when a thread stalls for 15 minutes
 *       between reading the clock and adding, or when the wall clock steps back).</li>
 * </ul>
 * A reader takes a cell's count only when its stamp is the second it asks for, so a
 * stale cell reads as zero without anyone having cleared it.
 *
 * <h2>Memory ordering</h2>
 * Every read and write is a volatile access of {@link AtomicLongArray}; the counts of one
 * second read by {@link #snapshot} are each exact at the moment they are read, not taken
 * at one instant. The hot path allocates nothing: a clock read, an index, and usually
 * one successful compare-and-set.
 */
public final class StatsRing {

    /** Seconds kept: 15 minutes. */
    public static final int SECONDS = 900;

    /** The counted outcomes. Their {@link #label} is the series' name in the JSON answer. */
    public enum Series {
        ACCEPTED, DUPLICATE,
        REFUSED_IP, REFUSED_NODE, REFUSED_SOURCE, REFUSED_TENANT, REFUSED_TENANT_BYTES,
        REFUSED_TENANT_OVERLOAD, REFUSED_TENANT_STORAGE, REFUSED_OVERLOAD,
        VERIFICATION_FAILED;

        public final String label = name().toLowerCase(Locale.ROOT);
    }

    private static final Series[] SERIES = Series.values();
    private static final int COUNT_BITS = 30;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;

    private final AtomicLongArray cells = new AtomicLongArray(SECONDS * SERIES.length);
    private final LongSupplier epochMillis;

    /** @param epochMillis the wall clock, in milliseconds since the epoch */
    public StatsRing(LongSupplier epochMillis) {
        this.epochMillis = Objects.requireNonNull(epochMillis, "epochMillis");
    }

    /** Counts one event of {@code series} in the current second. */
    public void add(Series series) {
        long second = Math.floorDiv(epochMillis.getAsLong(), 1000L);
        if (second < 0) {
            return;
        }
        int index = slot(second) * SERIES.length + series.ordinal();
        long stamp = second << COUNT_BITS;
        while (true) {
            long seen = cells.get(index);
            long seenStamp = seen & ~COUNT_MASK;
            long next;
            if (seenStamp == stamp) {
                if ((seen & COUNT_MASK) == COUNT_MASK) {
                    return;
                }
                next = seen + 1;
            } else if (Long.compareUnsigned(seenStamp, stamp) < 0) {
                next = stamp | 1L;
            } else {
                return;
            }
            if (cells.compareAndSet(index, seen, next)) {
                return;
            }
        }
    }

    /** The last whole second: the current one is still being counted and is left out. */
    public long lastWholeSecond() {
        return Math.floorDiv(epochMillis.getAsLong(), 1000L) - 1;
    }

    /**
     * The counts of {@code series} for the {@code seconds} seconds ending with {@code end}
     * (inclusive), oldest first. Seconds older than the ring read as zero.
     */
    public long[] snapshot(Series series, long end, int seconds) {
        if (seconds < 1 || seconds > SECONDS) {
            throw new IllegalArgumentException("seconds must be 1 to " + SECONDS + ", got " + seconds);
        }
        long[] out = new long[seconds];
        long first = end - seconds + 1;
        for (int i = 0; i < seconds; i++) {
            long second = first + i;
            if (second < 0) {
                continue;
            }
            long cell = cells.get(slot(second) * SERIES.length + series.ordinal());
            if ((cell & ~COUNT_MASK) == second << COUNT_BITS) {
                out[i] = cell & COUNT_MASK;
            }
        }
        return out;
    }

    private static int slot(long second) {
        return (int) (second % SECONDS);
    }
}

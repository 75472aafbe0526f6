package org.sluice.fleet;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Call outcomes over the last {@code window}, for the breaker: lock-free, no allocation.
 *
 * <p>Design. Time is cut into {@link #SLOTS} slots of {@code window / SLOTS} each; slot
 * {@code i} of a ring of {@link #SLOTS} {@code long}s holds the counts of the slot epoch
 * {@code e} with {@code e mod SLOTS == i}. One word per slot, so one CAS records a call:
 * <pre>
 *   63           40 39          20 19           0
 *  +---------------+--------------+--------------+
 *  | epoch (24 b)  | calls (20 b) | fails (20 b) |
 *  +---------------+--------------+--------------+
 * </pre>
 * A slot whose epoch is not the current one is stale: the first record of a new epoch
 * replaces it with {@code (epoch, 1, failed ? 1 : 0)}. A reading sums the slots whose
 * epoch is one of the last {@link #SLOTS} (so the window is {@code window} to {@code
 * window + one slot} long). Counts saturate at 2^20 - 1 per slot. Epochs are kept modulo
 * 2^24; a slot last written exactly 2^24 slots ago would be mistaken for a live one, a
 * case that needs a process idle for 2^24 slot lengths (19 days with a 1 s window) and
 * then a single call: it can at worst open the breaker once.
 *
 * <p>Memory ordering: {@link AtomicLongArray} CAS and volatile reads; the sum is not a
 * snapshot across slots, which a failure-rate estimate does not need.
 */
final class SlidingWindow {

    static final int SLOTS = 10;
    private static final long COUNT_MASK = (1L << 20) - 1;
    private static final long EPOCH_MASK = (1L << 24) - 1;

    private final AtomicLongArray slots = new AtomicLongArray(SLOTS);
    private final long slotNanos;
    private final long origin;

    SlidingWindow(long windowNanos, long originNanos) {
        this.slotNanos = Math.max(1L, windowNanos / SLOTS);
        this.origin = originNanos;
    }

    private long epoch(long now) {
        return Math.floorDiv(now - origin, slotNanos) & EPOCH_MASK;
    }

    /** Records one call's outcome at {@code now}. */
    void record(long now, boolean failed) {
        long epoch = epoch(now);
        int i = (int) (epoch % SLOTS);
        long fresh = (epoch << 40) | (1L << 20) | (failed ? 1L : 0L);
        slots.updateAndGet(i, w -> {
            if ((w >>> 40) != epoch) {
                return fresh;
            }
            long calls = Math.min(COUNT_MASK, ((w >>> 20) & COUNT_MASK) + 1);
            long fails = Math.min(COUNT_MASK, (w & COUNT_MASK) + (failed ? 1 : 0));
            return (epoch << 40) | (calls << 20) | fails;
        });
    }

    /** True when at least {@code minCalls} calls were seen and at least {@code rate} of them failed. */
    boolean tripped(long now, int minCalls, double rate) {
        long epoch = epoch(now);
        long calls = 0;
        long fails = 0;
        for (int i = 0; i < SLOTS; i++) {
            long w = slots.get(i);
            long age = (epoch - (w >>> 40)) & EPOCH_MASK;
            if (age < SLOTS && w != 0) {
                calls += (w >>> 20) & COUNT_MASK;
                fails += w & COUNT_MASK;
            }
        }
        return calls >= minCalls && fails >= rate * calls;
    }

    /** Forgets every outcome (the breaker closed: old failures must not reopen it). */
    void reset() {
        for (int i = 0; i < SLOTS; i++) {
            slots.set(i, 0L);
        }
    }
}

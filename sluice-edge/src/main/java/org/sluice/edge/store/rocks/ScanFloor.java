package org.sluice.edge.store.rocks;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/**
 * A key below which an index range of one destination has no live entry: a due time in
 * {@code delivery_due}, or a sequence number in the pending part of
 * {@code delivery_by_destination}. A deleted entry stays in RocksDB as a tombstone until
 * compaction, and a seek steps over every tombstone between its target and the first live
 * key: from the start of the destination's range that is every delivery handled since the
 * last compaction (hundreds of thousands under load, the dispatcher's main cost before the
 * due floor). Seeking from the floor steps only over entries deleted since the previous scan.
 *
 * <p>Writers {@link #lower} it after writing an entry. A scan {@link #open}s a window,
 * seeks from the floor, and {@link #raise}s it to the first live entry it saw, capped
 * by every entry lowered in during its window (whose write its iterator may have
 * missed); a window that another scan has replaced raises nothing. A writer that
 * lowers before the scan's window opened wrote before the scan's iterator was made,
 * so the scan saw its entry. The floor therefore never passes a live entry.
 */
final class ScanFloor {
    @GuardedBy("this")
    private long at;
    @GuardedBy("this")
    private long window;
    @GuardedBy("this")
    private long lowestInWindow = Long.MAX_VALUE;

    synchronized long at() {
        return at;
    }

    /** Opens a scan's window; returns {floor, window}. */
    synchronized long[] open() {
        lowestInWindow = Long.MAX_VALUE;
        return new long[] {at, ++window};
    }

    /** An entry at {@code key} was written (keys below 0 are stored as 0). */
    synchronized void lower(long key) {
        long k = Math.max(0, key); // as the keys store it
        at = Math.min(at, k);
        lowestInWindow = Math.min(lowestInWindow, k);
    }

    /** The scan of {@code scanWindow} saw no live entry below {@code firstLive} (MAX_VALUE: none at all). */
    synchronized void raise(long scanWindow, long firstLive) {
        if (scanWindow == window) {
            at = Math.max(at, Math.min(firstLive, lowestInWindow));
        }
    }
}

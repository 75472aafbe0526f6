package org.sluice.edge.server;

import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.StoreHealth;

/**
 * The store's size as the node acts on it: {@code sluice_store_bytes}, the
 * {@code store.max_bytes} bound (the {@code 503 store_full} of ingest and the
 * {@code store_full} reason of {@code /readyz}). The figure is {@link StoreHealth#approximateBytes()}
 * (SST files plus memtables), read by the retention thread once per tick and after it
 * reclaims space, and cached here, so that each hook's check is one volatile read.
 *
 * <p>Why that figure moves both ways: writes grow the memtables at once (in arena blocks of
 * about a megabyte, so the figure rises in steps), and flushes turn them into SST files.
 * Deletions alone do not shrink it (a delete is a tombstone; the data stays in its file until
 * a compaction), so while the store is at its bound the retention thread, after it has deleted
 * anything, calls {@link StoreHealth#reclaim()}, which flushes and compacts the deleted rows away.
 */
final class StoreSize {

    private final StoreHealth store;
    private final long maxBytes;
    private volatile long bytes;
    /** Told the size once it reaches {@link #nearlyFullBytes}; null: nobody. */
    private volatile java.util.function.LongConsumer onNearlyFull;
    private volatile long nearlyFullBytes = Long.MAX_VALUE;
    /** Whether the next reading at or past {@link #nearlyFullBytes} tells: again once a reading fell below it. */
    private volatile boolean armed = true;

    StoreSize(StoreHealth store, long maxBytes) {
        this.store = store;
        this.maxBytes = maxBytes;
        refresh();
    }

    /** Reads the store's size again (the retention thread, about once a second). */
    void refresh() {
        if (!store.isOpen()) {
            return;
        }
        try {
            bytes = store.approximateBytes();
        } catch (HookStoreException e) { // closed or being reopened after a failure: keep the last figure
            // the resume task and readiness report the failure itself
            return;
        }
        java.util.function.LongConsumer listener = onNearlyFull;
        if (bytes < nearlyFullBytes) {
            armed = true;
        } else if (armed && listener != null) {
            armed = false;
            listener.accept(bytes);
        }
    }

    /**
     * From now on calls {@code listener} with the size when a reading reaches {@code percent}
     * of {@code store.max_bytes}: once per crossing (again only after a reading below it).
     * Nothing without a bound.
     */
    void onNearlyFull(int percent, java.util.function.LongConsumer listener) {
        if (maxBytes > 0) {
            nearlyFullBytes = Math.max(1, maxBytes / 100 * percent + maxBytes % 100 * percent / 100);
            onNearlyFull = listener;
        }
    }

    /** The last figure read, in bytes. */
    long bytes() {
        return bytes;
    }

    /** True while a bound is set and the store's size is at or past it. */
    boolean full() {
        return maxBytes > 0 && bytes >= maxBytes;
    }

    /** {@code store.max_bytes}; 0 when unbounded. */
    long maxBytes() {
        return maxBytes;
    }
}

package org.sluice.edge.store;

/**
 * The store as readiness, metrics and the node's housekeeping see it: open or closed,
 * healthy or failing (and the attempt to bring it back), its size on disk, and its log
 * syncs.
 */
public interface StoreHealth {

    /** Where the store keeps its data, for messages (a directory, for the RocksDB store). */
    String location();

    /** True until the store is closed (readiness: {@code GET /readyz}). */
    boolean isOpen();

    /**
     * False from a failed write until a write succeeds again (readiness: {@code GET /readyz},
     * and the gauge {@code sluice_store_healthy}). While false every commit is still tried,
     * and the first that succeeds makes the store healthy again.
     */
    boolean isHealthy();

    /**
     * Tries to bring a failing store back; does nothing on a healthy one. Waits for running
     * reads and writes; callers run it off the request path.
     *
     * @return whether the store is healthy now
     */
    boolean tryResume();

    /**
     * The store's approximate size in bytes ({@code sluice_store_bytes}, for
     * {@code store.max_bytes}). Cheap, no I/O.
     */
    long approximateBytes();

    /**
     * Gives the space of deleted rows back, so that {@link #approximateBytes()} falls after
     * retention has deleted hooks. Slow and blocking: for a background thread only, and only
     * when the size matters (the store is at {@code store.max_bytes}). Ingest goes on meanwhile.
     */
    void reclaim();

    /**
     * How many times the store has synced its log since it was opened
     * ({@code sluice_store_wal_syncs_total}): its real fsyncs, fewer than its durable
     * commits when commits share a sync. After the store is closed, the count at the close.
     */
    long walSyncs();

    /**
     * Seconds the group commits' log syncs have taken since the store was opened
     * ({@code sluice_store_commit_sync_seconds_total}). The syncs run one at a time, so this
     * figure's rate is the share of time a commit's sync was in progress.
     */
    double commitSyncSeconds();
}

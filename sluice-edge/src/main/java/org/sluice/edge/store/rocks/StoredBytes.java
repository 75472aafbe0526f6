package org.sluice.edge.store.rocks;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;

/**
 * The body bytes each tenant has in the store, for {@code rate_limits.*.max_stored_bytes}
 * ({@link org.sluice.edge.store.HookLog#storedBytes}): added to when a commit's write has
 * returned, taken from when retention deletes a hook, rebuilt by a scan of every hook at
 * open and after a reopen. Off (every tenant reads 0, nothing is counted, nothing scanned)
 * unless the store was opened with {@link RocksHookStore.Options#countStoredBytes()}.
 *
 * <p><b>Bound.</b> A tenant's entry is removed when its count comes back to 0, so the map
 * holds at most one entry per tenant with a hook in the store, never one per tenant ever
 * seen. A commit is counted before its numbers become durable-up-to, so retention, which
 * deletes only hooks at or below that number, never takes from a count before its add.
 *
 * <p>Thread-safe: one atomic {@code merge} per change, no lock.
 */
final class StoredBytes {

    private final boolean counting;
    private final ConcurrentHashMap<String, Long> byTenant = new ConcurrentHashMap<>();

    StoredBytes(boolean counting) {
        this.counting = counting;
    }

    /** Whether this store counts at all. */
    boolean counting() {
        return counting;
    }

    /** The body bytes {@code tenant} has stored (0: none, or not counting). */
    long of(String tenant) {
        Long bytes = byTenant.get(tenant);
        return bytes == null ? 0L : Math.max(0L, bytes);
    }

    /** Tenants with a count now: at most the tenants with a hook stored. */
    int tenants() {
        return byTenant.size();
    }

    /** Counts the hooks of {@code batch} that {@code results} says were accepted; after their write returned. */
    void committed(List<PendingHook> batch, CommitResult[] results) {
        if (!counting) {
            return;
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i] != null && results[i].status() == CommitResult.Status.ACCEPTED) {
                PendingHook h = batch.get(i);
                add(h.tenant(), h.body().length);
            }
        }
    }

    /** Takes a deleted hook's body from its tenant, given the hook's stored record. */
    void deleted(byte[] record) {
        if (counting && record != null) {
            add(Codec.tenantOf(record), -Codec.bodyLengthOf(record));
        }
    }

    /** Counts every stored hook afresh; at open and after a reopen, when no commit or retention pass runs. */
    void rebuild(RocksFamilies f) throws org.rocksdb.RocksDBException {
        byTenant.clear();
        if (!counting) {
            return;
        }
        try (ReadOptions once = new ReadOptions().setFillCache(false);
             RocksIterator it = f.db().newIterator(f.hooks(), once)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] record = it.value();
                add(Codec.tenantOf(record), Codec.bodyLengthOf(record));
            }
            it.status();
        }
    }

    private void add(String tenant, long delta) {
        if (delta != 0) {
            byTenant.merge(tenant, delta, (had, more) -> had + more == 0 ? null : had + more);
        }
    }
}

package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.HookStoreException;

/**
 * The dedupe index's lookups and its sweep: {@code dedupe} maps (tenant, source, key) to the
 * id of the hook committed with it and the entry's expiry, {@code dedupe_expiry} orders the
 * entries by expiry for the sweep. The commit's own check is {@link GroupCommit}'s (see its
 * "Dedupe"): a lookup here leaves a key a commit is still writing to that check, and the
 * sweep takes the commit lock so that it never deletes a renewal.
 *
 * <p>Thread-safe.
 */
final class DedupeIndex {

    private final RocksDatabase database;
    private final GroupCommit commits;

    DedupeIndex(RocksDatabase database, GroupCommit commits) {
        this.database = database;
        this.commits = commits;
    }

    /**
     * The id of the hook committed with this (tenant, source, key) whose dedupe entry has
     * not expired at {@code nowMillis}, if any. A point read; never takes the commit lock.
     */
    Optional<String> findDuplicate(String tenant, String source, String key, long nowMillis) {
        byte[] dk = Codec.dedupeKey(tenant, source, key);
        if (commits.writing(dk)) {
            return Optional.empty(); // its write may not be durable yet: the commit's own check waits for it
        }
        return database.read(f -> Optional.ofNullable(originalIn(f.db().get(f.dedupe(), dk), nowMillis)));
    }

    /** The hook id a dedupe entry's value names while it is live at {@code nowMillis}, or null (no entry, or expired). */
    private static String originalIn(byte[] dedupeValue, long nowMillis) {
        if (dedupeValue == null || Codec.dedupeValueExpiry(dedupeValue) <= nowMillis) {
            return null;
        }
        return Codec.dedupeValueId(dedupeValue).toString();
    }

    /**
     * {@link #findDuplicate}, answered from memory alone (the memtables, the block cache and
     * the bloom filters), for a caller that must not wait (an event loop):
     * {@link DuplicateLookup#NEEDS_DISK} when the answer would need a disk read, or when a
     * reopen holds the store, and then the caller asks {@link #findDuplicate}. A key never
     * seen, the common case, is answered by the filters without a read.
     */
    DuplicateLookup findDuplicateInMemory(String tenant, String source, String key, long nowMillis) {
        byte[] dk = Codec.dedupeKey(tenant, source, key);
        if (commits.writing(dk)) {
            return DuplicateLookup.NONE; // as findDuplicate: the commit's own check waits for that write
        }
        try {
            return database.tryRead(DuplicateLookup.NEEDS_DISK, f -> { // a close or a reopen: findDuplicate waits for it, here nothing may
                String original = originalIn(f.db().get(f.dedupe(), f.memoryOnly(), dk), nowMillis);
                return original == null ? DuplicateLookup.NONE : new DuplicateLookup(true, original);
            });
        } catch (RocksDBException e) {
            if (e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete) {
                return DuplicateLookup.NEEDS_DISK;
            }
            throw new HookStoreException("read from the store at " + database.dir() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Removes at most {@code maxEntries} dedupe entries that expired at or before
     * {@code nowMillis}, oldest expiry first, and returns how many expiry records it
     * processed (0: nothing left to sweep). An entry renewed by a later commit of the
     * same key is kept; only its stale expiry record goes. Not fsynced: a sweep lost in
     * a crash is simply redone.
     */
    int sweepDedupe(int maxEntries, long nowMillis) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        return database.underLifecycle("dedupe sweep on", f -> {
            List<byte[]> due = new ArrayList<>();
            try (RocksIterator it = f.db().newIterator(f.dedupeExpiry())) {
                for (it.seekToFirst(); it.isValid() && due.size() < maxEntries; it.next()) {
                    byte[] k = it.key();
                    if (Codec.expiryKeyMillis(k) > nowMillis) {
                        break;
                    }
                    due.add(k);
                }
                it.status();
            }
            if (due.isEmpty()) {
                return 0;
            }
            database.writing(() -> commits.underCommitLock(() -> {
                try (WriteBatch wb = new WriteBatch()) {
                    for (byte[] k : due) {
                        long expiry = Codec.expiryKeyMillis(k);
                        byte[] dk = Codec.expiryKeyDedupeKey(k);
                        // a key an open commit is renewing keeps its entry: that commit's put may land after this delete
                        byte[] current = commits.writing(dk) ? null : f.db().get(f.dedupe(), dk);
                        if (current != null && Codec.dedupeValueExpiry(current) == expiry) {
                            wb.delete(f.dedupe(), dk);
                        }
                        wb.delete(f.dedupeExpiry(), k);
                    }
                    f.db().write(f.lazyWrite(), wb); // not synced: a lost sweep is redone, so its success proves no health
                }
                return null;
            }));
            return due.size();
        });
    }
}

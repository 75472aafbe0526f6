package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.StoredHook;

/**
 * Reads of committed hooks: by id, for the dispatcher (from the ledger's memory of recent
 * hooks when it has them, else in commit order with one iterator), and in pages in commit
 * order. Takes only the lifecycle read lock; pages stop at the durable-up-to number (see
 * {@link GroupCommit}).
 *
 * <p>Thread-safe.
 */
final class HookReads {

    private final RocksDatabase database;
    private final GroupCommit commits;
    private final RocksDeliveryLedger ledger;
    /** {@link #getForDelivery} reads served from memory, and read from RocksDB (see {@link #deliveryReads}). */
    private final LongAdder deliveryReadsFromMemory = new LongAdder();
    private final LongAdder deliveryReadsFromStore = new LongAdder();

    HookReads(RocksDatabase database, GroupCommit commits, RocksDeliveryLedger ledger) {
        this.database = database;
        this.commits = commits;
        this.ledger = ledger;
    }

    /** The committed hook with this id, or empty (also for a string that is not a UUID). */
    Optional<StoredHook> get(String id) {
        UUID uuid = Codec.parseHookId(id);
        return uuid == null ? Optional.empty() : get(uuid);
    }

    private Optional<StoredHook> get(UUID uuid) {
        return database.read(f -> {
            long cached = ledger.cachedSeq(uuid); // the delivery path's hooks: skips the id index
            if (cached >= 0) {
                return hookAt(f, Codec.u64(cached));
            }
            byte[] seq = f.db().get(f.hookIds(), Codec.uuid(uuid));
            return seq == null ? Optional.empty() : hookAt(f, seq);
        });
    }

    /** The hook stored under this sequence number key, if any; valid while {@code f} is. */
    private static Optional<StoredHook> hookAt(RocksFamilies f, byte[] seqKey) throws RocksDBException {
        byte[] value = f.db().get(f.hooks(), seqKey);
        return value == null ? Optional.empty() : Optional.of(Codec.hook(value));
    }

    /**
     * The hook with this id for the dispatcher, which is about to send it: from memory when
     * its commit kept it there (recent hooks with pending deliveries, bounded, see
     * {@code SeqCache}), else as {@link #get}. Unlike {@link #get}, the body array may be the
     * one committed and shared with other readers of this method: callers must not modify it.
     */
    Optional<StoredHook> getForDelivery(String id) {
        return getForDelivery(id, -1);
    }

    /**
     * How many of {@link #getForDelivery}'s reads found the hook in memory ({@code true}) or
     * read it from RocksDB ({@code false}), since the store opened
     * ({@code sluice_delivery_hook_reads_total{from="memory"|"store"}}).
     */
    long deliveryReads(boolean fromMemory) {
        return (fromMemory ? deliveryReadsFromMemory : deliveryReadsFromStore).sum();
    }

    /**
     * As {@link #getForDelivery(String)}, for a hook whose commit sequence number the caller
     * has ({@code seq}, from {@link DeliveryLedger.Due#seqs()}; -1 when it has none): on a miss
     * of the memory, the hook is read at that number, without looking its id up.
     */
    Optional<StoredHook> getForDelivery(String id, long seq) {
        UUID uuid = Codec.parseHookId(id);
        if (uuid == null) {
            return Optional.empty();
        }
        StoredHook kept = ledger.cachedHook(uuid, seq);
        if (kept != null) {
            deliveryReadsFromMemory.increment();
            return Optional.of(kept);
        }
        deliveryReadsFromStore.increment();
        if (seq < 0) {
            return get(uuid); // parsed once, also on a miss
        }
        return database.read(f -> hookAt(f, Codec.u64(seq)));
    }

    /**
     * As {@link #getForDelivery(String, long)} for many hooks at once, the rows of one due
     * scan ({@code ids.get(i)} committed as {@code seqs[i]}, -1 when unknown): those not in memory are read
     * with one iterator in commit order ({@link OrderedReads}) instead of a point read each,
     * which is what a backlog's reads are. Returns the hooks at the same indexes, null where
     * an id is malformed or its hook is gone.
     */
    StoredHook[] getForDelivery(List<String> ids, long[] seqs) {
        if (seqs.length != ids.size()) {
            throw new IllegalArgumentException(seqs.length + " sequence numbers for " + ids.size() + " ids");
        }
        StoredHook[] found = new StoredHook[ids.size()];
        int[] misses = new int[ids.size()];
        int missed = 0;
        int hits = 0;
        for (int i = 0; i < found.length; i++) {
            UUID uuid = Codec.parseHookId(ids.get(i));
            if (uuid == null) {
                continue;
            }
            if (seqs[i] < 0) { // no number: by id, as the single read does
                found[i] = getForDelivery(ids.get(i), -1).orElse(null);
                continue;
            }
            found[i] = ledger.cachedHook(uuid, seqs[i]);
            if (found[i] == null) {
                misses[missed++] = i;
            } else {
                hits++;
            }
        }
        deliveryReadsFromMemory.add(hits);
        if (missed == 0) {
            return found;
        }
        deliveryReadsFromStore.add(missed);
        byte[][] keys = new byte[missed][];
        for (int m = 0; m < missed; m++) {
            keys[m] = Codec.u64(seqs[misses[m]]);
        }
        byte[][] values = database.read(f -> OrderedReads.read(f.db(), f.hooks(), keys, false)); // read once: kept out of the block cache
        for (int m = 0; m < missed; m++) {
            if (values[m] != null) {
                StoredHook h = Codec.hook(values[m]);
                if (h.id().equals(ids.get(misses[m]))) { // the number is the caller's word; the id is checked
                    found[misses[m]] = h;
                }
            }
        }
        return found;
    }

    /**
     * As {@link HookLog#after(String, int)}, but the page also ends once its bodies reach
     * {@code maxBytes} (a page always holds at least one hook), so that a page of big
     * bodies cannot exhaust the heap; {@link HookPage#next()} then points on. See
     * {@link GroupCommit}'s "Durable up to" for why paging returns every hook exactly once.
     */
    HookPage after(String afterId, int limit, long maxBytes) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return database.read(f -> {
            long visible = commits.durableUpTo(); // read before the iterator is made: every number up to it is in its view or never will be
            long fromSeq = 0;
            if (afterId != null) {
                UUID uuid = Codec.parseHookId(afterId);
                byte[] seq = uuid == null ? null : f.db().get(f.hookIds(), Codec.uuid(uuid));
                if (seq == null) {
                    throw new IllegalArgumentException("after: no stored hook has id " + afterId);
                }
                fromSeq = Codec.u64(seq);
            }
            List<StoredHook> page = new ArrayList<>(Math.min(limit, 1024));
            boolean more;
            long bytes = 0;
            try (RocksIterator it = f.db().newIterator(f.hooks())) {
                for (it.seek(Codec.u64(fromSeq + 1)); visibleAt(it, visible) && page.size() < limit && bytes < maxBytes; it.next()) {
                    StoredHook h = Codec.hook(it.value());
                    page.add(h);
                    bytes += h.body().length;
                }
                it.status();
                more = visibleAt(it, visible);
            }
            String next = more && !page.isEmpty() ? page.get(page.size() - 1).id() : null;
            return new HookPage(page, next);
        });
    }

    /**
     * As {@link org.sluice.edge.store.HookLog#newest}: from the newest visible hook (or the
     * one before {@code afterId}) backwards, each hook's body dropped as it is read. Only
     * hooks numbered up to the durable-up-to number are listed, as in {@link #after}; a hook
     * whose commit is still being written shows on a later read.
     */
    HookSummary.Page newest(String afterId, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return database.read(f -> {
            long from = commits.durableUpTo();
            if (afterId != null) {
                UUID uuid = Codec.parseHookId(afterId);
                byte[] seq = uuid == null ? null : f.db().get(f.hookIds(), Codec.uuid(uuid));
                if (seq == null) {
                    throw new IllegalArgumentException("after: no stored hook has id " + afterId);
                }
                from = Math.min(from, Codec.u64(seq) - 1);
            }
            List<HookSummary> page = new ArrayList<>(Math.min(limit, 1024));
            boolean more = false;
            if (from >= 0) {
                try (RocksIterator it = f.db().newIterator(f.hooks())) {
                    for (it.seekForPrev(Codec.u64(from)); it.isValid() && page.size() < limit; it.prev()) {
                        page.add(HookSummary.of(Codec.hook(it.value())));
                    }
                    it.status();
                    more = it.isValid();
                }
            }
            String next = more && !page.isEmpty() ? page.get(page.size() - 1).id() : null;
            return new HookSummary.Page(page, next);
        });
    }

    /**
     * Whether the hooks iterator is on a hook a pager may return: one numbered at most
     * {@code visible}. A higher one is written, but a lower number may still be in a write
     * that is not over; returning it now would let that lower one be skipped by the next page.
     */
    private static boolean visibleAt(RocksIterator it, long visible) {
        return it.isValid() && Codec.u64(it.key()) <= visible;
    }
}

package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.rocks.LedgerStore.LedgerFamilies;

/**
 * What the parts of {@link RocksDeliveryLedger} share: the handle on the store, the lock
 * that serialises the read-modify-write of rows, the counters, the scan floors, the count
 * of others' writes and the cache of recent hooks; with the row reads and the row write
 * ({@link #replace}) every part uses. See {@link RocksDeliveryLedger} for the rules.
 */
final class LedgerState {

    static final byte[] EMPTY = new byte[0];

    final LedgerStore store;
    /** Serialises transitions, redeliveries and retention (read-modify-write of rows). */
    final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Counter> counts = new ConcurrentHashMap<>();

    /**
     * Counts the writes that change stored rows behind the dispatcher's back (a redelivery, a
     * retention pass, a reopen), each bumped after its write and under {@code lock}. A row
     * read while it had one value is still exactly as read as long as it has that value (see
     * {@link DeliveryLedger.Transition#seenAt}).
     */
    final AtomicLong othersWrites = new AtomicLong();

    /** Hook id -> sequence number of the hooks the dispatcher is likely to name (see {@link SeqCache}). */
    final SeqCache seqCache = new SeqCache();

    /** Per destination, where a due scan starts: a due time (see {@link ScanFloor}). */
    private final Map<String, ScanFloor> floors = new ConcurrentHashMap<>();

    /**
     * Per destination, where the seek for its oldest pending hook starts: a commit sequence
     * number in the pending index ({@link LedgerQueries#counts}; see {@link ScanFloor}). Every delivered or
     * dead row leaves a tombstone at the front of that index, so a seek from the start of the
     * destination's range stepped over every delivery finished since the last compaction, on
     * every look at the counts (the admin API, the console, each metrics scrape): during a
     * replay of 700,000 hooks, the admin's two looks a second took a sixth of the server's CPU.
     */
    private final Map<String, ScanFloor> pendingFloors = new ConcurrentHashMap<>();

    /** Pending and dead rows of one destination. */
    static final class Counter {
        final AtomicLong pending = new AtomicLong();
        final AtomicLong dead = new AtomicLong();
    }

    LedgerState(LedgerStore store) {
        this.store = store;
    }

    ScanFloor floor(String destination) {
        return floors.computeIfAbsent(destination, k -> new ScanFloor());
    }

    ScanFloor pendingFloor(String destination) {
        return pendingFloors.computeIfAbsent(destination, k -> new ScanFloor());
    }

    Counter counter(String destination) {
        return counts.computeIfAbsent(destination, k -> new Counter());
    }

    /** The counters of {@code destination}, or null when it never had a pending or dead row. */
    Counter counterOrNull(String destination) {
        return counts.get(destination);
    }

    /** Names of the destinations with counters. */
    java.util.Set<String> counted() {
        return counts.keySet();
    }

    /** Recounts pending and dead rows per destination; at open and after a reopen (no concurrent writer). */
    void rebuild(LedgerFamilies f) {
        othersWrites.incrementAndGet(); // a reopened database: rows read before it are read again
        counts.clear();
        floors.clear();
        pendingFloors.clear();
        try (RocksIterator it = f.db().newIterator(f.byDestination())) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                Counter c = counter(DeliveryCodec.indexKeyDestination(k));
                (DeliveryCodec.indexKeyState(k) == DeliveryState.PENDING ? c.pending : c.dead).incrementAndGet();
            }
        }
    }

    /** Puts {@code next} in place of {@code cur} (null: no row yet), with its index entries. */
    static void replace(WriteBatch wb, LedgerFamilies f, UUID id, long seq, DeliveryRow cur, DeliveryRow next)
            throws RocksDBException {
        String d = next.destination();
        if (cur != null && cur.state() == DeliveryState.PENDING) {
            wb.delete(f.due(), DeliveryCodec.dueKey(d, cur.nextAttemptAtMillis(), seq));
        }
        if (cur != null && cur.state() != next.state() && cur.state() != DeliveryState.DELIVERED) {
            wb.delete(f.byDestination(), DeliveryCodec.indexKey(cur.state(), d, seq));
        }
        if (next.state() == DeliveryState.PENDING) {
            wb.put(f.due(), DeliveryCodec.dueKey(d, next.nextAttemptAtMillis(), seq), EMPTY);
        }
        if (next.state() != DeliveryState.DELIVERED && (cur == null || cur.state() != next.state())) {
            wb.put(f.byDestination(), DeliveryCodec.indexKey(next.state(), d, seq), Codec.uuid(id));
        }
        wb.put(f.deliveries(), DeliveryCodec.rowKey(seq, d), DeliveryCodec.row(id, next));
    }

    /** Moves the counters from {@code cur}'s state (null: none) to {@code next}'s (null: deleted). */
    void counted(DeliveryRow cur, DeliveryRow next) {
        String d = (next != null ? next : cur).destination();
        Counter c = counter(d);
        if (cur != null) {
            if (cur.state() == DeliveryState.PENDING) {
                c.pending.decrementAndGet();
            } else if (cur.state() == DeliveryState.DEAD) {
                c.dead.decrementAndGet();
            }
        }
        if (next != null) {
            if (next.state() == DeliveryState.PENDING) {
                c.pending.incrementAndGet();
            } else if (next.state() == DeliveryState.DEAD) {
                c.dead.incrementAndGet();
            }
        }
    }

    /**
     * The sequence number of a hook whose existing rows the caller reads before it changes
     * them ({@link LedgerTransitions#apply}): a remembered number is enough there, since a deleted hook's rows
     * read as missing. Anything that creates rows or answers "no such hook" uses {@link #seqOf}.
     */
    Long rowsSeqOf(LedgerFamilies f, UUID id) throws RocksDBException {
        long cached = seqCache.get(id);
        return cached >= 0 ? Long.valueOf(cached) : seqOf(f, id);
    }

    /** The sequence number of a stored hook, from the id index (null: no such hook). */
    static Long seqOf(LedgerFamilies f, UUID id) throws RocksDBException {
        byte[] seq = f.db().get(f.hookIds(), Codec.uuid(id));
        return seq == null ? null : Codec.u64(seq);
    }

    /** Every delivery row of the hook committed under {@code seq}, in destination order. */
    static List<DeliveryRow> rowsOf(LedgerFamilies f, long seq) throws RocksDBException {
        List<DeliveryRow> out = new ArrayList<>();
        byte[] prefix = Codec.u64(seq);
        try (RocksIterator it = f.db().newIterator(f.deliveries())) {
            for (it.seek(prefix); it.isValid() && DeliveryCodec.startsWith(it.key(), prefix); it.next()) {
                out.add(DeliveryCodec.row(DeliveryCodec.rowKeyDestination(it.key()), it.value()));
            }
            it.status();
        }
        return out;
    }

    static void checkLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
    }
}

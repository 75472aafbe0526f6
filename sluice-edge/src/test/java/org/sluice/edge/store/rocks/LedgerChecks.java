package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;

/** Full checks of a {@link RocksDeliveryLedger}'s stored rows against its invariants, for tests. */
final class LedgerChecks {

    private LedgerChecks() {
    }

    /** The destination's scan floor (no live due entry lies below it). */
    static long floorMillis(RocksDeliveryLedger ledger, String destination) {
        return ledger.state().floor(destination).at();
    }

    /** The destination's pending floor (no live pending index entry lies below this sequence number). */
    static long pendingFloorSeq(RocksDeliveryLedger ledger, String destination) {
        return ledger.state().pendingFloor(destination).at();
    }

    /**
     * Every broken invariant of {@link RocksDeliveryLedger}'s class comment, as text (empty when none), and whether
     * the counters match the rows. A full scan: for tests and offline checks only.
     */
    static List<String> verify(RocksDeliveryLedger ledger) {
        LedgerState state = ledger.state();
        return state.store.read((f, unused) -> {
            RocksDB db = f.db();
            List<String> problems = new ArrayList<>();
            ColumnFamilyHandle rows = f.deliveries();
            ColumnFamilyHandle due = f.due();
            ColumnFamilyHandle byDest = f.byDestination();
            ColumnFamilyHandle hooks = f.hooks();
            Map<String, long[]> scanned = new LinkedHashMap<>();
            try (RocksIterator it = db.newIterator(rows)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    long seq = DeliveryCodec.rowKeySeq(it.key());
                    String d = DeliveryCodec.rowKeyDestination(it.key());
                    DeliveryRow r = DeliveryCodec.row(d, it.value());
                    String where = "row " + r.hookId() + "/" + d + " (" + r.state().code() + ")";
                    if (db.get(hooks, Codec.u64(seq)) == null) {
                        problems.add(where + ": its hook is missing");
                    }
                    boolean hasDue = db.get(due, DeliveryCodec.dueKey(d, r.nextAttemptAtMillis(), seq)) != null;
                    boolean hasPending = db.get(byDest, DeliveryCodec.indexKey(DeliveryState.PENDING, d, seq)) != null;
                    boolean hasDead = db.get(byDest, DeliveryCodec.indexKey(DeliveryState.DEAD, d, seq)) != null;
                    boolean pending = r.state() == DeliveryState.PENDING;
                    boolean dead = r.state() == DeliveryState.DEAD;
                    if (hasDue != pending || hasPending != pending || hasDead != dead) {
                        problems.add(where + ": due entry " + hasDue + ", pending entry " + hasPending + ", dead entry " + hasDead);
                    }
                    long[] c = scanned.computeIfAbsent(d, k -> new long[2]);
                    c[0] += pending ? 1 : 0;
                    c[1] += dead ? 1 : 0;
                }
                it.status();
            }
            long dueEntries = 0;
            try (RocksIterator it = db.newIterator(due)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    dueEntries++;
                }
            }
            long pendingRows = scanned.values().stream().mapToLong(c -> c[0]).sum();
            if (dueEntries != pendingRows) {
                problems.add(dueEntries + " due entries for " + pendingRows + " pending rows");
            }
            long indexEntries = 0;
            try (RocksIterator it = db.newIterator(byDest)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    indexEntries++;
                }
            }
            long deadRows = scanned.values().stream().mapToLong(c -> c[1]).sum();
            if (indexEntries != pendingRows + deadRows) {
                problems.add(indexEntries + " destination index entries for " + (pendingRows + deadRows) + " pending and dead rows");
            }
            for (Map.Entry<String, long[]> e : scanned.entrySet()) {
                LedgerState.Counter c = state.counterOrNull(e.getKey());
                long p = c == null ? 0 : c.pending.get();
                long dd = c == null ? 0 : c.dead.get();
                if (p != e.getValue()[0] || dd != e.getValue()[1]) {
                    problems.add("counters of " + e.getKey() + " say " + p + " pending, " + dd + " dead; rows say "
                            + e.getValue()[0] + ", " + e.getValue()[1]);
                }
            }
            return problems;
        });
    }
}

package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;

/**
 * The working set's eviction ({@link org.sluice.edge.store.WorkingSet#forget}): deletes
 * hooks with every row they have, keeping the ledger's invariants (a row goes with its
 * index entries, in one write) and its counters. Runs under the ledger's lock, never the
 * commit lock, like {@link LedgerRetention}. See {@link RocksDeliveryLedger}.
 *
 * <p>Unlike retention it deletes the newest hook too: a store reopened after that may hand
 * its number out again, which is harmless because nothing keyed by the number is left
 * (rows and index entries go in the same write, and the {@link SeqCache} is new at open).
 */
final class LedgerEviction {

    private final LedgerState state;

    LedgerEviction(LedgerState state) {
        this.state = state;
    }

    /** Deletes the hooks of {@code hookIds} that are stored, with their rows; returns how many. */
    int forget(Collection<String> hookIds) {
        List<UUID> ids = new ArrayList<>(hookIds.size());
        for (String s : hookIds) {
            UUID id = Codec.parseHookId(s);
            if (id != null) {
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        return state.store.write(false, (f, writeOptions) -> {
            RocksDB db = f.db();
            state.lock.lock();
            try {
                int deleted = 0;
                List<DeliveryRow> gone = new ArrayList<>();
                try (WriteBatch wb = new WriteBatch()) {
                    for (UUID id : ids) {
                        Long seq = LedgerState.seqOf(f, id);
                        if (seq == null) {
                            continue;
                        }
                        for (DeliveryRow r : LedgerState.rowsOf(f, seq)) {
                            String d = r.destination();
                            if (r.state() == DeliveryState.PENDING) {
                                wb.delete(f.due(), DeliveryCodec.dueKey(d, r.nextAttemptAtMillis(), seq));
                            }
                            if (r.state() != DeliveryState.DELIVERED) {
                                wb.delete(f.byDestination(), DeliveryCodec.indexKey(r.state(), d, seq));
                            }
                            wb.delete(f.deliveries(), DeliveryCodec.rowKey(seq, d));
                            gone.add(r);
                        }
                        wb.delete(f.hooks(), Codec.u64(seq));
                        wb.delete(f.hookIds(), Codec.uuid(id));
                        deleted++;
                    }
                    if (wb.count() > 0) {
                        try {
                            db.write(writeOptions, wb);
                        } finally {
                            state.othersWrites.incrementAndGet(); // after the write: a row read before it is not exact
                        }
                    }
                }
                for (DeliveryRow r : gone) {
                    state.counted(r, null);
                }
                return deleted;
            } finally {
                state.lock.unlock();
            }
        });
    }
}

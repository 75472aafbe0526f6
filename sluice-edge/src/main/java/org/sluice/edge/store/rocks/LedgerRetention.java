package org.sluice.edge.store.rocks;

import org.sluice.edge.store.UuidV7;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.RetentionResult;

/**
 * The delivery ledger's retention: bounded passes over the oldest hooks that delete expired
 * dead letters and the hooks nothing needs any more, with their delivered rows. Runs under
 * the ledger's lock, never the commit lock. See {@link RocksDeliveryLedger}.
 */
final class LedgerRetention {

    private final LedgerState state;
    /** The hook id (16 bytes) the next retention pass starts after; null: from the oldest. */
    @GuardedBy("state.lock")
    private byte[] retentionCursor;

    /** Told the hooks each pass deleted, so that a reclaim compacts their key ranges. */
    private final StoreReclaim reclaims;

    /** Told the records of the hooks each pass deleted, when it counts each tenant's stored bytes. */
    private final StoredBytes stored;

    LedgerRetention(LedgerState state, StoreReclaim reclaims, StoredBytes stored) {
        this.state = state;
        this.reclaims = reclaims;
        this.stored = stored;
    }

    /**
     * One bounded retention pass over at most {@code maxHooks} hooks, oldest first,
     * continuing where the previous pass stopped. A hook's age is its commit time (from its
     * UUIDv7 id). For each hook:
     * <ul>
     *   <li>a DEAD row dead for at least {@code deadMaxAgeMillis} is deleted;</li>
     *   <li>the hook (record, id entry and DELIVERED rows) is deleted once it is at least
     *       {@code hooksMaxAgeMillis} old and it has no PENDING row and no DEAD row left;
     *       a hook with a pending delivery is never deleted, and a dead letter keeps its
     *       hook (so that it can be redelivered) until the dead letter itself expires;</li>
     *   <li>with {@code storeFull}, a hook whose rows are all DELIVERED (at least one) is
     *       deleted whatever its age (counted in {@code deliveredEarly}).</li>
     * </ul>
     * The newest hook is deleted like any other: the highest number and id deleted are kept
     * as the {@link SequenceFloor}, which the commit sequence resumes above at open. The
     * pass stops early at the first hook too young for either rule, or numbered above the
     * store's durable-up-to number (a commit below it is still writing); the next pass then
     * starts from the oldest again. Not fsynced: a pass lost in a crash is redone.
     */
    RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks,
                                  boolean storeFull) {
        LedgerState.checkLimit(maxHooks);
        if (hooksMaxAgeMillis < 0 || deadMaxAgeMillis < 0) {
            throw new IllegalArgumentException("retention ages must be at least 0, got " + hooksMaxAgeMillis + " and " + deadMaxAgeMillis);
        }
        long hooksCutoff = nowMillis - hooksMaxAgeMillis;
        long deadCutoff = nowMillis - deadMaxAgeMillis;
        // a hook committed after this has nothing to delete (when full, a delivered hook of any age does)
        long youngest = storeFull ? nowMillis : Math.max(hooksCutoff, deadCutoff);
        return state.store.write(false, (f, writeOptions) -> {
            RocksDB db = f.db();
            state.lock.lock();
            try {
                long visible = state.store.durableUpTo(); // before the iterators: see GroupCommit
                SequenceFloor.Floor floor = SequenceFloor.read(db, f.meta());
                long floorSeq = floor == null ? -1 : floor.seq();
                byte[] floorId = null; // set when this pass deleted a hook above the stored floor
                int examined = 0;
                int hooksDeleted = 0;
                int deadDeleted = 0;
                int early = 0;
                boolean more = false;
                byte[] last = null;
                List<DeliveryRow> deadGone = new ArrayList<>();
                List<Long> gone = new ArrayList<>();
                List<byte[]> goneIds = new ArrayList<>();
                List<byte[]> goneRecords = new ArrayList<>(); // read only when stored bytes are counted
                try (WriteBatch wb = new WriteBatch(); RocksIterator it = db.newIterator(f.hookIds())) {
                    if (retentionCursor == null) {
                        it.seekToFirst();
                    } else {
                        it.seek(retentionCursor);
                        if (it.isValid() && java.util.Arrays.equals(it.key(), retentionCursor)) {
                            it.next();
                        }
                    }
                    for (; it.isValid(); it.next()) {
                        if (examined == maxHooks) {
                            more = true;
                            break;
                        }
                        byte[] idBytes = it.key();
                        UUID id = Codec.uuid(ByteBuffer.wrap(idBytes));
                        long committed = UuidV7.millisOf(id);
                        long seq = Codec.u64(it.value());
                        if (committed > youngest || seq > visible) {
                            // too young, or a lower number may still be in a write: the cursor must not pass it
                            break;
                        }
                        examined++;
                        last = idBytes;
                        boolean keep = false;
                        List<byte[]> delivered = new ArrayList<>();
                        for (DeliveryRow r : LedgerState.rowsOf(f, seq)) {
                            byte[] rowKey = DeliveryCodec.rowKey(seq, r.destination());
                            switch (r.state()) {
                                case PENDING -> keep = true;
                                case DELIVERED -> delivered.add(rowKey);
                                case DEAD -> {
                                    if (r.deadAtMillis() != null && r.deadAtMillis() <= deadCutoff) {
                                        wb.delete(f.deliveries(), rowKey);
                                        wb.delete(f.byDestination(), DeliveryCodec.indexKey(DeliveryState.DEAD, r.destination(), seq));
                                        deadGone.add(r);
                                        deadDeleted++;
                                    } else {
                                        keep = true;
                                    }
                                }
                            }
                        }
                        boolean deliveredEarly = storeFull && !keep && !delivered.isEmpty() && committed > hooksCutoff;
                        if (!keep && (committed <= hooksCutoff || deliveredEarly)) {
                            early += deliveredEarly ? 1 : 0;
                            for (byte[] k : delivered) {
                                wb.delete(f.deliveries(), k);
                            }
                            if (stored.counting()) {
                                goneRecords.add(db.get(f.hooks(), Codec.u64(seq)));
                            }
                            wb.delete(f.hooks(), Codec.u64(seq));
                            wb.delete(f.hookIds(), idBytes);
                            hooksDeleted++;
                            gone.add(seq);
                            goneIds.add(idBytes);
                            if (seq > floorSeq) { // a pass walks in number order; an earlier cycle may have gone higher
                                floorSeq = seq;
                                floorId = idBytes;
                            }
                        }
                    }
                    it.status();
                    if (floorId != null) { // once per pass: each put is an entry in meta's memtable until a flush
                        SequenceFloor.put(wb, f.meta(), floorSeq, floorId);
                    }
                    if (wb.count() > 0) {
                        try {
                            db.write(writeOptions, wb);
                        } finally {
                            state.othersWrites.incrementAndGet();
                        }
                    }
                }
                for (int i = 0; i < gone.size(); i++) {
                    reclaims.deleted(gone.get(i), goneIds.get(i));
                }
                for (byte[] record : goneRecords) {
                    stored.deleted(record);
                }
                for (DeliveryRow r : deadGone) {
                    state.counted(r, null);
                }
                retentionCursor = more ? last : null;
                return new RetentionResult(examined, hooksDeleted, deadDeleted, more, early);
            } finally {
                state.lock.unlock();
            }
        });
    }
}

package org.sluice.edge.store.rocks;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Gives the space of deleted rows back, for {@link RocksHookStore#reclaim()}: the store's
 * size ({@code sluice_store_bytes}, {@code store.max_bytes}) counts memtables and table
 * files, and a deletion is a tombstone that shrinks neither until a flush and a compaction.
 *
 * <p>Two sizes of reclaim (issue 46, point 6: a full store used to wait up to a minute for
 * the one kind there was, a compaction of whole families):
 * <ul>
 *   <li><b>every call</b>: the memtables of the families retention and the dedupe sweep
 *       delete from (and {@code meta}, see {@link RocksFamilies#deletedFrom()}) are flushed, and the key ranges retention deleted hooks from since the
 *       last call are compacted in {@code hooks}, {@code deliveries} (both keyed by the
 *       commit number first) and {@code hook_ids} (keyed by the time-ordered id). The work
 *       is the size of what was deleted there (plus what survives inside those ranges: a
 *       hook with a pending delivery among delivered ones), so it can run every second;</li>
 *   <li><b>at most once every {@value #WHOLE_EVERY_MILLIS} ms</b> of the store's wall clock
 *       (and at the first call): every such family compacted whole, as before, for the
 *       small rows deleted anywhere in their key space (dedupe entries, dead-letter index
 *       entries).</li>
 * </ul>
 * Thread-safe: the ranges are noted by the retention pass (under the ledger's lock) and
 * drained by the caller of reclaim (the retention thread).
 */
final class StoreReclaim {

    /** The least wall-clock time between two whole-family compactions: a minute, as before. */
    static final long WHOLE_EVERY_MILLIS = 60_000;

    @GuardedBy("this")
    private long minSeq = Long.MAX_VALUE;
    @GuardedBy("this")
    private long maxSeq = -1;
    @GuardedBy("this")
    private byte[] minId;
    @GuardedBy("this")
    private byte[] maxId;
    @GuardedBy("this")
    private long lastWholeMillis;
    @GuardedBy("this")
    private boolean wholeDone;

    /** Notes that retention deleted the hook numbered {@code seq} with id {@code idBytes}. */
    synchronized void deleted(long seq, byte[] idBytes) {
        minSeq = Math.min(minSeq, seq);
        maxSeq = Math.max(maxSeq, seq);
        if (minId == null || Arrays.compareUnsigned(idBytes, minId) < 0) {
            minId = idBytes.clone();
        }
        if (maxId == null || Arrays.compareUnsigned(idBytes, maxId) > 0) {
            maxId = idBytes.clone();
        }
    }

    /** What one reclaim compacts: the ranges noted since the last one (or none), and whether whole families. */
    private record Plan(long minSeq, long maxSeq, byte[] minId, byte[] maxId, boolean whole) {
        boolean hasRange() {
            return maxSeq >= 0;
        }
    }

    private synchronized Plan drain(long nowMillis) {
        boolean whole = !wholeDone || nowMillis - lastWholeMillis >= WHOLE_EVERY_MILLIS;
        if (whole) {
            wholeDone = true;
            lastWholeMillis = nowMillis;
        }
        Plan plan = new Plan(minSeq, maxSeq, minId, maxId, whole);
        minSeq = Long.MAX_VALUE;
        maxSeq = -1;
        minId = null;
        maxId = null;
        return plan;
    }

    /** One reclaim on the open database {@code f}, at wall-clock {@code nowMillis} (see the class comment). */
    void run(RocksFamilies f, long nowMillis) throws RocksDBException {
        Plan plan = drain(nowMillis);
        RocksDB db = f.db();
        List<ColumnFamilyHandle> deletedFrom = f.deletedFrom();
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, deletedFrom);
        }
        if (plan.whole()) {
            for (ColumnFamilyHandle family : deletedFrom) {
                db.compactRange(family);
            }
            return;
        }
        if (plan.hasRange()) {
            byte[] from = Codec.u64(plan.minSeq());
            byte[] to = Codec.u64(plan.maxSeq() + 1); // past every delivery row of the last hook
            db.compactRange(f.hooks(), from, to);
            db.compactRange(f.deliveries(), from, to);
            db.compactRange(f.hookIds(), plan.minId(), plan.maxId());
        }
    }
}

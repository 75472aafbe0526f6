package org.sluice.edge.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * A read-only walk over the hooks committed in a time range, returning their delivery row
 * to one destination: what a replay selects. Hook ids are UUIDv7, so the {@code hook_ids}
 * family is ordered by commit time and a range is one seek plus a bounded iteration.
 *
 * <p>Each call examines at most {@code maxHooks} hook ids and returns a cursor to continue
 * from, so a walk over any range holds one page in memory. Takes only the store's lifecycle
 * read lock: it never blocks ingest or the dispatcher. It stops at the first hook numbered
 * above the store's durable-up-to number, as pagers do (see {@link HookStore}).
 */
public final class DeliveryScan {

    /**
     * One step of a walk.
     *
     * @param rows   the rows to the destination of the hooks examined, in commit-time order
     *               (hooks without a row to it are skipped)
     * @param cursor the last examined hook id, to pass as {@code afterId} for the next step;
     *               null when the range is exhausted
     */
    public record Page(List<DeliveryRow> rows, String cursor) {
        public Page {
            rows = List.copyOf(rows);
        }
    }

    private DeliveryScan() {
    }

    /**
     * Rows to {@code destination} of hooks committed in {@code [fromMillis, toMillis)} (by
     * their id's time), after hook id {@code afterId} (from {@code fromMillis} when null),
     * examining at most {@code maxHooks} hooks.
     */
    public static Page rows(HookStore store, String destination, long fromMillis, long toMillis, String afterId,
                            int maxHooks) {
        Objects.requireNonNull(store, "store");
        PendingHook.checkDestination(destination);
        if (maxHooks < 1) {
            throw new IllegalArgumentException("maxHooks must be at least 1, got " + maxHooks);
        }
        if (fromMillis < 0 || toMillis < fromMillis) {
            throw new IllegalArgumentException("the range must satisfy 0 <= from <= to, got " + fromMillis + " to " + toMillis);
        }
        byte[] after = afterId == null ? null : Codec.uuid(UUID.fromString(afterId));
        return store.underReadLock((rocks, unused) -> {
            long visible = store.durableUpTo(); // before the iterator: see HookStore's class comment
            RocksDB db = rocks.db();
            ColumnFamilyHandle ids = store.family(HookStore.CF_HOOK_IDS);
            ColumnFamilyHandle rowsFamily = store.family(DeliveryLedger.CF_DELIVERIES);
            List<DeliveryRow> out = new ArrayList<>();
            int examined = 0;
            String last = null;
            try (RocksIterator it = db.newIterator(ids)) {
                byte[] floor = Codec.uuid(new UUID(fromMillis << 16, 0L));
                if (after != null && Arrays.compareUnsigned(after, floor) >= 0) {
                    it.seek(after);
                    if (it.isValid() && Arrays.equals(it.key(), after)) {
                        it.next();
                    }
                } else {
                    it.seek(floor);
                }
                for (; it.isValid(); it.next()) {
                    UUID id = Codec.uuid(ByteBuffer.wrap(it.key()));
                    long seq = Codec.u64(it.value());
                    if (UuidV7.millisOf(id) >= toMillis || seq > visible) {
                        // past the range, or past what is durable without a gap: the walk ends here, as at
                        // the end of the family (a later hook with a lower number may still be being written)
                        return new Page(out, null);
                    }
                    if (examined == maxHooks) {
                        return new Page(out, last);
                    }
                    examined++;
                    last = id.toString();
                    byte[] row = db.get(rowsFamily, DeliveryCodec.rowKey(seq, destination));
                    if (row != null) {
                        out.add(DeliveryCodec.row(destination, row));
                    }
                }
                it.status();
            }
            return new Page(out, null);
        });
    }
}

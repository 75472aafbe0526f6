package org.sluice.edge.store.rocks;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.PendingHook;

/**
 * The hook records of one commit batch, encoded before the commit lock into a direct buffer
 * that belongs to the committing thread, and handed to the {@link WriteBatch} from there (its
 * direct-buffer put copies them into the batch). On the accept path this replaces one heap
 * array per hook, the size of its body and headers, with nothing.
 *
 * <pre>
 * arena: | seq key (8) | record 0 | record 1 | ... |   (reused by the thread's next batch)
 * </pre>
 * A record that does not fit what is left of the arena (large bodies) is encoded into a heap
 * array instead, as before. Confined to one thread and one {@code commit} call.
 */
final class BatchRecords {

    /** Per committing thread; 256 signed 1 KiB hooks take about 300 KiB. */
    static final int ARENA_BYTES = 1 << 20;
    private static final ThreadLocal<Views> ARENA = ThreadLocal.withInitial(Views::new);
    private static final int KEY_BYTES = 8;

    private final ByteBuffer key;
    /** Bounds one record at a time, for the put. */
    private final ByteBuffer value;
    /** The whole arena, for absolute writes of ids. */
    private final ByteBuffer whole;
    /** Offset of record i in the arena, or -1 when it is {@code heap[i]}. */
    private final int[] start;
    private final int[] end;
    private final byte[][] heap;

    /** One thread's arena and its views, made once (three buffer objects less per batch). */
    private static final class Views {
        final ByteBuffer key;
        final ByteBuffer value;
        final ByteBuffer whole;

        Views() {
            ByteBuffer arena = ByteBuffer.allocateDirect(ARENA_BYTES);
            key = arena.duplicate();
            value = arena.duplicate();
            whole = arena;
        }
    }

    private BatchRecords(Views views, int n) {
        this.key = views.key;
        this.value = views.value.clear();
        this.whole = views.whole;
        this.start = new int[n];
        this.end = new int[n];
        this.heap = new byte[n][];
    }

    /** Encodes every record of {@code batch} with a zero id (set later by {@link #setId}). */
    static BatchRecords encode(List<PendingHook> batch, UUID noId) {
        BatchRecords records = new BatchRecords(ARENA.get(), batch.size());
        int at = KEY_BYTES;
        for (int i = 0; i < batch.size(); i++) {
            PendingHook h = batch.get(i);
            int size = Codec.hookSize(h);
            if (size <= ARENA_BYTES - at) {
                records.value.limit(at + size).position(at);
                Codec.putHook(records.value, noId, h);
                records.start[i] = at;
                records.end[i] = at + size;
                at += size;
            } else {
                records.start[i] = -1;
                records.heap[i] = Codec.hook(noId, h);
            }
        }
        return records;
    }

    void setId(int i, UUID id) {
        if (start[i] < 0) {
            Codec.setHookId(ByteBuffer.wrap(heap[i]), 0, id);
        } else {
            Codec.setHookId(whole, start[i], id);
        }
    }

    /** Puts record {@code i} under the big-endian key {@code seq} into {@code cf}. */
    void put(WriteBatch wb, ColumnFamilyHandle cf, long seq, int i) throws RocksDBException {
        if (start[i] < 0) {
            wb.put(cf, Codec.u64(seq), heap[i]);
            return;
        }
        key.clear();
        key.putLong(0, seq).limit(KEY_BYTES);
        value.limit(end[i]).position(start[i]);
        wb.put(cf, key, value);
    }
}

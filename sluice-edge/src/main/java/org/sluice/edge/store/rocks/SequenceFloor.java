package org.sluice.edge.store.rocks;

import java.nio.ByteBuffer;
import java.util.UUID;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The highest commit sequence number and id that retention has deleted, kept under one key
 * of the {@code meta} family so that numbers and ids stay monotonic across a restart once
 * every hook (the newest included) has been deleted (issue 46, point 5: the newest hook
 * used to be kept for ever, only to carry the sequence).
 *
 * <pre>
 * meta/sequence_floor: | seq (8, big-endian) | id (16, UUIDv7) |
 * </pre>
 * Written by the retention pass in the batch that deletes the hook, and only when higher
 * than the stored value (passes are serialised under the ledger's lock, the only writer).
 * Read at open: the next number is above both the last stored hook and this floor, and the
 * next id after the later of their ids. A store written before this key existed has none,
 * and then kept its newest hook, so it opens as before.
 */
final class SequenceFloor {

    static final byte[] KEY = Codec.utf8("sequence_floor");
    private static final int BYTES = 8 + 16;

    /** The floor: a hook's number and id. */
    record Floor(long seq, UUID id) {}

    private SequenceFloor() {
    }

    /** The stored floor, or null when retention has deleted nothing yet (or the value is not one). */
    static Floor read(RocksDB db, ColumnFamilyHandle meta) throws RocksDBException {
        byte[] v = db.get(meta, KEY);
        if (v == null || v.length != BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        long seq = b.getLong();
        return new Floor(seq, Codec.uuid(b));
    }

    /** Puts the floor {@code (seq, idBytes)} into {@code wb}. */
    static void put(WriteBatch wb, ColumnFamilyHandle meta, long seq, byte[] idBytes) throws RocksDBException {
        byte[] v = ByteBuffer.allocate(BYTES).putLong(seq).put(idBytes).array();
        wb.put(meta, KEY, v);
    }
}

package org.sluice.edge.store.rocks;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Many point reads of one column family done with one iterator, in key order. A backlog's
 * rows and hooks are read in commit order, and their keys start with the commit's sequence
 * number, so the next key wanted is nearly always the next one stored (or a few entries
 * on, past the rows of other destinations): one step of the iterator, against a point
 * read's lookup in every memtable and level (its skip-list search, bloom filter probes and
 * index-block search). A key further on is reached by a seek. A handful of keys are read
 * with point reads ({@link #MIN_KEYS}).
 *
 * <p>The iterator reads the database as it was when the read began; callers read keys whose
 * value a concurrent writer either does not change (a hook) or whose staleness they check
 * as they would a point read's (a delivery row read after its due entry). Callers hold the
 * store's lifecycle read lock.
 */
final class OrderedReads {

    /** Steps taken towards the next key before seeking to it instead. */
    static final int MAX_STEPS = 8;

    /**
     * Fewer keys than this are read with a point read each: an iterator costs more to set
     * up (a view of every memtable and file, and a first seek in each level without bloom
     * filters) than a few point reads, and a dispatcher that keeps up reads a few rows a pass.
     */
    static final int MIN_KEYS = 8;

    private OrderedReads() {
    }

    /**
     * The value stored at each of {@code keys} (null where there is none), at the same
     * index; the keys may come in any order, and are read in the database's (bytewise) order.
     * {@code fillCache}: whether the blocks read from files go into the block cache (false for
     * values read once, such as a backlog's hooks, which would push out the blocks that
     * lookups on the ingest path need).
     */
    static byte[][] read(RocksDB db, ColumnFamilyHandle family, byte[][] keys, boolean fillCache) throws RocksDBException {
        byte[][] values = new byte[keys.length][];
        if (keys.length < MIN_KEYS) {
            try (ReadOptions options = new ReadOptions().setFillCache(fillCache)) {
                for (int i = 0; i < keys.length; i++) {
                    values[i] = db.get(family, options, keys[i]);
                }
            }
            return values;
        }
        int[] order = inKeyOrder(keys);
        try (ReadOptions options = new ReadOptions().setFillCache(fillCache);
             RocksIterator it = db.newIterator(family, options)) {
            boolean positioned = false;
            byte[] at = null; // the iterator's key; null when it is not on one
            for (int i : order) {
                byte[] target = keys[i];
                // at the first key >= the previous target, and this target >= the previous one
                for (int steps = 0; steps < MAX_STEPS && at != null && Arrays.compareUnsigned(at, target) < 0; steps++) {
                    it.next();
                    at = it.isValid() ? it.key() : null;
                }
                if (!positioned || at == null || Arrays.compareUnsigned(at, target) < 0) {
                    it.seek(target);
                    at = it.isValid() ? it.key() : null;
                    positioned = true;
                }
                if (at != null && Arrays.equals(at, target)) {
                    values[i] = it.value();
                }
            }
            it.status();
        }
        return values;
    }

    /** The indexes of {@code keys} in key order; without sorting when they already are, as a backlog's nearly always are. */
    private static int[] inKeyOrder(byte[][] keys) {
        int[] order = IntStream.range(0, keys.length).toArray();
        for (int i = 1; i < keys.length; i++) {
            if (Arrays.compareUnsigned(keys[i - 1], keys[i]) > 0) {
                return IntStream.range(0, keys.length).boxed()
                        .sorted(Comparator.comparing(k -> keys[k], Arrays::compareUnsigned))
                        .mapToInt(Integer::intValue).toArray();
            }
        }
        return order;
    }
}

package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** {@link OrderedReads} answers exactly what a point read of each key answers, on a real RocksDB. */
class OrderedReadsTest {

    @TempDir
    Path dir;

    @Test
    void readsTheSameValuesAsAPointReadOfEachKeyInAnyOrder() throws RocksDBException {
        RocksDB.loadLibrary();
        Random random = new Random(42);
        try (Options options = new Options().setCreateIfMissing(true);
             RocksDB db = RocksDB.open(options, dir.toString())) {
            // keys 1..3000 with gaps; part in SST files, part in the memtable; some deleted (tombstones)
            for (long k = 1; k <= 3_000; k++) {
                if (random.nextInt(4) != 0) {
                    db.put(Codec.u64(k), ("v" + k).getBytes());
                }
                if (k == 1_500) {
                    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                        db.flush(flush);
                    }
                }
            }
            for (long k = 1; k <= 3_000; k += 7) {
                db.delete(Codec.u64(k));
            }
            for (int trial = 0; trial < 300; trial++) {
                int n = random.nextInt(40);
                List<byte[]> keys = new ArrayList<>();
                long k = random.nextInt(3_100);
                for (int i = 0; i < n; i++) {
                    // mostly close together, as a backlog's are; sometimes far on, back, repeated or past the end
                    switch (random.nextInt(6)) {
                        case 0 -> k = random.nextInt(3_200);
                        case 1 -> { } // the same key again
                        default -> k += 1 + random.nextInt(12);
                    }
                    keys.add(Codec.u64(k));
                }
                if (random.nextBoolean()) {
                    keys.sort(java.util.Arrays::compareUnsigned); // the common case: in key order
                }
                byte[][] asked = keys.toArray(new byte[0][]);

                byte[][] values = OrderedReads.read(db, db.getDefaultColumnFamily(), asked, trial % 2 == 0);

                assertThat(values.length).isEqualTo(asked.length);
                for (int i = 0; i < asked.length; i++) {
                    assertThat(values[i]).as("key %d of trial %d", Codec.u64(asked[i]), trial).isEqualTo(db.get(asked[i]));
                }
            }
            assertThat(OrderedReads.read(db, db.getDefaultColumnFamily(), new byte[0][], true)).isEmpty();
        }
    }
}

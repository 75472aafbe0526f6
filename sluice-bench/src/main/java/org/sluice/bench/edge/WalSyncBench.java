package org.sluice.bench.edge;

import java.nio.file.Files;
import java.nio.file.Path;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB's own log sync, as the store's group commit makes it: batches of 20 records of
 * 1,324 bytes (a 1 KiB hook as the log holds it) written without sync, then {@code SyncWAL},
 * back to back, in a fresh database in {@code dir}, with {@code recycle_log_file_num} set to
 * {@code recycle} (0: RocksDB's default, every log a new file). Syncs of the first 3 s are
 * not counted (the first logs are new files either way). Prints syncs per second and the
 * mean, p50 and p99 of one. See docs/bench-notes/edge-2026-12-05-to-06.md, "The write-ahead
 * log's bound".
 *
 * <p>Usage: {@code WalSyncBench dir seconds recycle}
 */
public final class WalSyncBench {

    private static final int RECORDS = 20;
    private static final int RECORD_BYTES = 1324;
    private static final long WARM_NANOS = 3_000_000_000L;

    private WalSyncBench() {
    }

    public static void main(String[] args) throws Exception {
        Path parent = Path.of(args[0]);
        double seconds = Double.parseDouble(args[1]);
        int recycle = Integer.parseInt(args[2]);
        RocksDB.loadLibrary();
        Path dir = Files.createTempDirectory(parent, "wal-sync-bench");
        try {
            run(dir, seconds, recycle);
        } finally {
            BenchFiles.deleteTree(dir);
        }
    }

    private static void run(Path dir, double seconds, int recycle) throws RocksDBException {
        byte[] value = new byte[RECORD_BYTES];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        try (Options options = new Options().setCreateIfMissing(true).setRecycleLogFileNum(recycle);
             RocksDB db = RocksDB.open(options, dir.toString());
             WriteOptions unsynced = new WriteOptions()) {
            long[] samples = new long[1 << 22];
            int n = 0;
            long key = 0;
            long start = System.nanoTime();
            long counted = start + WARM_NANOS;
            long end = counted + (long) (seconds * 1e9);
            long now = start;
            long from = 0;
            while (now < end && n < samples.length) {
                try (WriteBatch batch = new WriteBatch()) {
                    for (int i = 0; i < RECORDS; i++) {
                        batch.put(Long.toString(key++).getBytes(java.nio.charset.StandardCharsets.US_ASCII), value);
                    }
                    db.write(unsynced, batch);
                }
                long t0 = System.nanoTime();
                db.syncWal();
                now = System.nanoTime();
                if (t0 >= counted) {
                    if (from == 0) {
                        from = t0;
                    }
                    samples[n++] = now - t0;
                }
            }
            System.out.printf("wal sync bench: recycle_log_file_num=%d syncs=%d syncs_per_s=%.0f %s%n", recycle, n,
                    n / ((now - from) / 1e9), BenchFiles.millisSummary(samples, n));
        }
    }
}

package org.sluice.bench.edge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * What each RocksDB block compression costs a store of webhook bodies: the size of its
 * files and the time to read them all back in key order, as a backlog replay reads hooks.
 *
 * <p>For each compression it writes the same {@code hooks} bodies (push-event-like JSON of
 * about 1.5 KiB: ids and hashes that do not compress, field names and words that do, from
 * a fixed seed) keyed by a sequence number into a fresh database in {@code dir}, flushes and
 * compacts it, reports the SST bytes, then reads every value with one iterator (three
 * times; the fastest is printed) and checks the bytes read.
 *
 * <p>Usage: {@code CompressionSize dir hooks}
 */
public final class CompressionSize {

    private static final String[] WORDS = {"fix", "add", "update", "remove", "refactor", "the", "parser", "for",
        "webhook", "retry", "limit", "tests", "docs", "config", "handler", "when", "empty", "header", "bump",
        "version", "merge", "branch", "main", "into", "release", "cache", "store", "delivery", "timeout", "error"};

    private CompressionSize() {
    }

    public static void main(String[] args) throws IOException, RocksDBException {
        Path parent = Path.of(args[0]);
        int hooks = Integer.parseInt(args[1]);
        RocksDB.loadLibrary();
        for (CompressionType type : List.of(CompressionType.NO_COMPRESSION, CompressionType.SNAPPY_COMPRESSION,
                CompressionType.LZ4_COMPRESSION, CompressionType.ZSTD_COMPRESSION)) {
            Path dir = Files.createTempDirectory(parent, "compression-size");
            try (Options options = new Options().setCreateIfMissing(true).setCompressionType(type)
                    .setTableFormatConfig(new BlockBasedTableConfig());
                 RocksDB db = RocksDB.open(options, dir.toString());
                 WriteOptions write = new WriteOptions()) {
                Random random = new Random(7);
                long raw = 0;
                for (int i = 0; i < hooks; i += 256) {
                    try (WriteBatch batch = new WriteBatch()) {
                        for (int j = i; j < Math.min(hooks, i + 256); j++) {
                            byte[] body = body(random, j);
                            raw += body.length;
                            batch.put(ByteBuffer.allocate(8).putLong(j).array(), body);
                        }
                        db.write(write, batch);
                    }
                }
                try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
                     CompactRangeOptions compact = new CompactRangeOptions()) {
                    db.flush(flush);
                    db.compactRange(null, null, null, compact);
                }
                long sst = db.getLongProperty("rocksdb.total-sst-files-size");
                long best = Long.MAX_VALUE;
                for (int round = 0; round < 3; round++) {
                    long t0 = System.nanoTime();
                    long read = 0;
                    try (RocksIterator it = db.newIterator()) {
                        for (it.seekToFirst(); it.isValid(); it.next()) {
                            read += it.value().length;
                        }
                        it.status();
                    }
                    if (read != raw) {
                        throw new IllegalStateException(type + ": read " + read + " bytes, wrote " + raw);
                    }
                    best = Math.min(best, System.nanoTime() - t0);
                }
                System.out.printf("compression=%s hooks=%d body_bytes=%d sst_bytes=%d ratio=%.2f read_in_order_ms=%d hooks_per_s=%.0f%n",
                        type.getLibraryName() == null ? "none" : type.getLibraryName(), hooks, raw, sst, (double) raw / sst,
                        best / 1_000_000, hooks / (best / 1e9));
            } finally {
                BenchFiles.deleteTree(dir);
            }
        }
    }

    /** A push-event-like body: what compresses (names, words, repeated values) and what does not (ids, hashes). */
    private static byte[] body(Random random, int n) {
        StringBuilder b = new StringBuilder(2048);
        String repo = "acme/service-" + random.nextInt(40);
        b.append("{\"ref\":\"refs/heads/").append(random.nextBoolean() ? "main" : "feature-" + random.nextInt(500))
                .append("\",\"before\":\"").append(hex(random, 40)).append("\",\"after\":\"").append(hex(random, 40))
                .append("\",\"repository\":{\"id\":").append(100_000 + random.nextInt(900_000))
                .append(",\"full_name\":\"").append(repo).append("\",\"html_url\":\"https://git.example/").append(repo)
                .append("\",\"private\":true,\"default_branch\":\"main\"},\"pusher\":{\"name\":\"dev").append(random.nextInt(200))
                .append("\",\"email\":\"dev").append(random.nextInt(200)).append("@example.com\"},\"commits\":[");
        int commits = 1 + random.nextInt(3);
        for (int c = 0; c < commits; c++) {
            b.append(c == 0 ? "" : ",").append("{\"id\":\"").append(hex(random, 40)).append("\",\"message\":\"");
            int words = 4 + random.nextInt(12);
            for (int w = 0; w < words; w++) {
                b.append(w == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
            }
            b.append("\",\"timestamp\":\"2026-12-04T").append(10 + random.nextInt(10)).append(':')
                    .append(10 + random.nextInt(50)).append(":00Z\",\"added\":[],\"removed\":[],\"modified\":[\"src/")
                    .append(WORDS[random.nextInt(WORDS.length)]).append(".java\"]}");
        }
        b.append("],\"delivery\":\"").append(hex(random, 8)).append('-').append(hex(random, 4)).append('-')
                .append(hex(random, 4)).append('-').append(hex(random, 4)).append('-').append(hex(random, 12))
                .append("\",\"sequence\":").append(n).append('}');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(Random random, int digits) {
        StringBuilder s = new StringBuilder(digits);
        for (int i = 0; i < digits; i++) {
            s.append(Character.forDigit(random.nextInt(16), 16));
        }
        return s.toString();
    }
}

package org.sluice.bench.edge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What the disk allows a group commit: one writer appending {@code bytes}-sized chunks to a
 * file in {@code dir} and forcing each to the device ({@code FileChannel.force(false)}, an
 * fdatasync) before the next, as the store's commit lock serialises its write-ahead-log
 * syncs. Prints appends-and-syncs per second and the mean and p99 time of one. Run it in the
 * directory that holds the store's data (the same disk) and with the mean batch's record
 * bytes, so that {@code hooks/s / (syncs/s x mean batch)} near 1 says the disk is the limit.
 *
 * <p>With {@code overwrite}, the file is first written to 256 MiB and synced, and the chunks
 * then go over it from its start: the fdatasync of a file that does not grow has no size or
 * block allocation to commit to the file system's journal (what a recycled write-ahead log
 * would get; docs/bench-notes/edge-2026-12-05-to-06.md, "The write-ahead log's bound").
 *
 * <p>Usage: {@code FsyncBench dir bytes seconds [append|overwrite]} (append by default)
 */
public final class FsyncBench {

    /** The file's size: the appends start over past it, the overwrites go from its start again. */
    private static final long FILE_BYTES = 256L << 20;

    private FsyncBench() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int bytes = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        boolean overwrite = args.length > 3 && args[3].equals("overwrite");
        if (args.length > 3 && !overwrite && !args[3].equals("append")) {
            throw new IllegalArgumentException("mode must be append or overwrite, got " + args[3]);
        }
        Path file = Files.createTempFile(dir, "fsync-bench", ".log");
        ByteBuffer chunk = ByteBuffer.allocateDirect(Math.max(1, bytes));
        for (int i = 0; i < chunk.capacity(); i++) {
            chunk.put(i, (byte) i);
        }
        long[] samples = new long[1 << 20];
        int n = 0;
        long written = 0;
        try (FileChannel ch = overwrite ? FileChannel.open(file, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            if (overwrite) {
                ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
                for (long at = 0; at < FILE_BYTES; at += block.capacity()) {
                    block.clear();
                    while (block.hasRemaining()) {
                        ch.write(block, at + block.position());
                    }
                }
                ch.force(true);
            }
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long now = start;
            while (now < end && n < samples.length) {
                long t0 = System.nanoTime();
                chunk.clear();
                while (chunk.hasRemaining()) {
                    written += overwrite ? ch.write(chunk, written) : ch.write(chunk);
                }
                ch.force(false);
                now = System.nanoTime();
                samples[n++] = now - t0;
                if (written + chunk.capacity() > FILE_BYTES) { // keep the file bounded: start over, as a log rolls
                    if (!overwrite) {
                        ch.truncate(0);
                    }
                    written = 0;
                }
            }
            double elapsed = (now - start) / 1e9;
            System.out.printf("fsync bench%s: bytes_per_sync=%d syncs=%d syncs_per_s=%.0f %s%n",
                    overwrite ? " (overwrite)" : "", bytes, n, n / elapsed, BenchFiles.millisSummary(samples, n));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

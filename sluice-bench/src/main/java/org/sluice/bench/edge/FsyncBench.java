package org.sluice.bench.edge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * What the disk allows a group commit: one writer appending {@code bytes}-sized chunks to a
 * file in {@code dir} and forcing each to the device ({@code FileChannel.force(false)}, an
 * fdatasync) before the next, as the store's commit lock serialises its write-ahead-log
 * syncs. Prints appends-and-syncs per second and the mean and p99 time of one. Run it in the
 * directory that holds the store's data (the same disk) and with the mean batch's record
 * bytes, so that {@code hooks/s / (syncs/s x mean batch)} near 1 says the disk is the limit.
 *
 * <p>Usage: {@code FsyncBench dir bytes seconds}
 */
public final class FsyncBench {

    private FsyncBench() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int bytes = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        Path file = Files.createTempFile(dir, "fsync-bench", ".log");
        ByteBuffer chunk = ByteBuffer.allocateDirect(Math.max(1, bytes));
        for (int i = 0; i < chunk.capacity(); i++) {
            chunk.put(i, (byte) i);
        }
        long[] samples = new long[1 << 20];
        int n = 0;
        long written = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long now = start;
            while (now < end && n < samples.length) {
                long t0 = System.nanoTime();
                chunk.clear();
                while (chunk.hasRemaining()) {
                    written += ch.write(chunk);
                }
                ch.force(false);
                now = System.nanoTime();
                samples[n++] = now - t0;
                if (written > (256L << 20)) { // keep the file bounded: start over, as a log rolls
                    ch.truncate(0);
                    written = 0;
                }
            }
            double elapsed = (now - start) / 1e9;
            long[] sorted = Arrays.copyOf(samples, n);
            Arrays.sort(sorted);
            double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
            System.out.printf("fsync bench: bytes_per_sync=%d syncs=%d syncs_per_s=%.0f mean_ms=%.3f p50_ms=%.3f p99_ms=%.3f%n",
                    bytes, n, n / elapsed, mean, sorted[n / 2] / 1e6, sorted[Math.min(n - 1, (int) (n * 0.99))] / 1e6);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

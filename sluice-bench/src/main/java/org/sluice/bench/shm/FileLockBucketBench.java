package org.sluice.bench.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The other usual way: a token bucket per key in a file that every process opens, each
 * check under a {@link FileChannel} lock on the key's 16-byte record (lock, read,
 * refill, write, unlock: four system calls). The file is in /dev/shm, so no disk is
 * involved. Same workloads and policies as {@link SharedRateBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class FileLockBucketBench {

    static final int RECORD = 16;

    Path file;
    FileChannel channel;
    final ByteBuffer record = ByteBuffer.allocateDirect(RECORD);
    int next;

    @Setup(Level.Trial)
    public void open() throws IOException {
        file = Path.of("/dev/shm", "sluice-bench-lock-" + UUID.randomUUID());
        channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        channel.write(ByteBuffer.allocate(RECORD * (SharedRateBench.KEYS + 1)), 0);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        channel.close();
        Files.deleteIfExists(file);
    }

    /** Tokens (scaled by 1e6) and a nanoTime stamp; 0 stamp = never seen = full. */
    boolean take(int slot, long limit, long windowNanos) throws IOException {
        long at = (long) slot * RECORD;
        try (FileLock lock = channel.lock(at, RECORD, false)) {
            record.clear();
            channel.read(record, at);
            long tokens = record.getLong(0);
            long stamp = record.getLong(8);
            long now = System.nanoTime();
            long scale = 1_000_000L;
            if (stamp == 0) {
                tokens = limit * scale;
            } else {
                long elapsed = Math.max(0, now - stamp);
                tokens = Math.min(limit * scale, tokens + (long) ((double) elapsed * limit * scale / windowNanos));
            }
            boolean ok = tokens >= scale;
            if (ok) {
                tokens -= scale;
            }
            record.putLong(0, tokens).putLong(8, now);
            record.clear();
            channel.write(record, at);
            return ok;
        }
    }

    @Benchmark
    public boolean distinctKeys() throws IOException {
        int slot = next;
        next = (next + 1) & (SharedRateBench.KEYS - 1);
        return take(slot, 1_000_000, 1_000_000_000L);
    }

    @Benchmark
    public boolean hotKey() throws IOException {
        return take(SharedRateBench.KEYS, 1000, 1_000_000_000L);
    }
}

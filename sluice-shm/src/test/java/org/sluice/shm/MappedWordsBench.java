package org.sluice.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The parts of an uncontended {@code allow()} after the hash and the clock, on an arena
 * in /dev/shm, single thread: one operation of {@link MappedWords} alone, and
 * {@link SlotTable#update} on the two workloads of {@code SharedRateBench} with a clock
 * that is a counter (so none of the figure is {@code System.nanoTime()}).
 *
 * <ul>
 *   <li>{@code volatileRead}, {@code cas}, {@code atomicAdd}: one access to one word.</li>
 *   <li>{@code chargeAdmitted}: 1024 keys (precomputed hashes) under 1 token per
 *       microsecond with a one-second burst, time advancing 1 us per call: every call
 *       admits and writes its word (reads, GCRA, CAS, counter add).</li>
 *   <li>{@code chargeRefused}: one key at 1 per millisecond, time frozen: every call is
 *       refused (reads, GCRA, counter add).</li>
 *   <li>{@code peek}: the same reads as {@code chargeRefused} without the decision and the
 *       counter add ({@link SlotTable#peekTat}); the difference is what counting costs.</li>
 * </ul>
 * Run with {@code -jvmArgs -Dorg.sluice.shm.unsafe=false} (or {@code true}) to measure
 * the other access way; the default is printed by {@code MappedWords.RAW}.
 *
 * <p>Lives in {@code org.sluice.shm}, not under {@code org.sluice.bench}, because
 * {@link MappedWords}, {@link SlotTable} and the arena's carving are package-private.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class MappedWordsBench {

    private Path file;
    private SharedArena arena;
    private MappedWords words;
    private int at;
    private SlotTable wide;
    private SlotTable hot;
    private final long[] hashes = new long[1024];
    private int next;
    private long now = 1_000_000_000L;

    @Setup(Level.Trial)
    public void open() {
        file = SharedArena.defaultFile("sluice-bench-" + UUID.randomUUID());
        arena = SharedArena.create(file, 16 << 20);
        int offset = arena.carve("words", ArenaLayout.KIND_GCRA, 0, 0, 8);
        at = offset;
        words = new MappedWords(arena.mapping(), offset, (int) (offset + SlotTable.carveBytes(8)));
        wide = new SlotTable(arena.mapping(), arena.carve("wide", ArenaLayout.KIND_GCRA, 0, 0, 8192), 8192);
        hot = new SlotTable(arena.mapping(), arena.carve("hot", ArenaLayout.KIND_GCRA, 0, 0, 64), 64);
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = r.nextLong();
        }
        System.out.println("access: " + (MappedWords.RAW ? "raw (sun.misc.Unsafe)" : "view (VarHandle)"));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        arena.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    public long volatileRead() {
        return words.getVolatile(at);
    }

    @Benchmark
    public boolean cas() {
        long v = words.getVolatile(at);
        return words.compareAndSet(at, v, v + 1);
    }

    @Benchmark
    public void atomicAdd() {
        words.getAndAdd(at, 1L);
    }

    @Benchmark
    public long chargeAdmitted() {
        int i = next;
        next = (i + 1) & 1023;
        return wide.update(hashes[i], SlotTable.OP_CHARGE, 1, 1_000_000, ++now);
    }

    @Benchmark
    public long chargeRefused() {
        return hot.update(77L, SlotTable.OP_CHARGE, 1000, 1_000_000, now);
    }

    @Benchmark
    public long peek() {
        return hot.peekTat(77L, 1_000_000, now);
    }
}

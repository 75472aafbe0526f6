package org.sluice.bench.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.Threads;
import org.sluice.core.Clock;
import org.sluice.shm.SharedArena;
import org.sluice.shm.SharedGcraTable;
import org.sluice.shm.SharedRate;

/**
 * {@link SharedRate#allow} on an arena in /dev/shm.
 *
 * <ul>
 *   <li>{@code distinctKeys}: each thread cycles through its own 1024 keys under a policy
 *       (1 000 000 per second) they never exhaust, so every call is admitted and every
 *       call writes its word with a compare-and-swap: the expensive path.</li>
 *   <li>{@code hotKey}: every thread hits one key at its limit (1000 per second): nearly
 *       every call is refused, which reads the word and writes only a counter: what a
 *       flood on one key costs.</li>
 *   <li>{@code gcraDistinctKeys}: {@link SharedGcraTable#tryCharge}, the edge's primitive, on
 *       the {@code distinctKeys} workload.</li>
 *   <li>{@code distinctByteKeys}, {@code hotByteKey}: the same with the keys' UTF-8
 *       bytes ({@code allow(byte[])}; the same buckets, the cheaper byte hash).</li>
 *   <li>{@code distinctByteKeysTicking}, {@code hotByteKeyTicking}: the byte-key cases on
 *       limiters given the opt-in coarse clock ({@code Clock.ticking(1 ms)}), which
 *       replaces the {@code System.nanoTime()} call by one volatile read.</li>
 *   <li>{@code distinctByteKeysRefusedTicking}, {@code distinctByteKeysRetryAfterTicking},
 *       {@code tickingClock}: {@code distinctByteKeysTicking} taken apart, one piece at a
 *       time. The same keys on a limiter of one per hour, so that after the first pass
 *       every call is refused (no compare-and-swap; the denied counter's atomic add
 *       remains); {@code retryAfter} on the admitting limiter (the hash, the group's
 *       read and the arithmetic: no write at all); the clock's reading alone. See
 *       docs/bench-notes/ticking-clock.md, "Where a refusal's time went".</li>
 *   <li>{@code nanoTime}: the clock read every check includes, for scale.</li>
 * </ul>
 * The {@code 2t} variants run the same with two threads.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SharedRateBench {

    static final int KEYS = 1024;

    @State(Scope.Benchmark)
    public static class Arena {
        Path file;
        SharedArena arena;
        SharedRate wide;
        SharedRate hot;
        SharedRate wideTicking;
        SharedRate hotTicking;
        SharedRate strictTicking;
        Clock ticking;
        SharedGcraTable tenants;

        @Setup(Level.Trial)
        public void open() {
            file = SharedArena.defaultFile("sluice-bench-" + UUID.randomUUID());
            arena = SharedArena.create(file, 16 << 20);
            wide = arena.rate("wide", 1_000_000, Duration.ofSeconds(1), 8 * KEYS);
            hot = arena.rate("hot", 1000, Duration.ofSeconds(1), 64);
            tenants = arena.gcraTable("tenants", 8 * KEYS);
            ticking = Clock.ticking(Duration.ofMillis(1));
            wideTicking = arena.rate("wide-ticking", 1_000_000, Duration.ofSeconds(1), 8 * KEYS, ticking);
            hotTicking = arena.rate("hot-ticking", 1000, Duration.ofSeconds(1), 64, ticking);
            strictTicking = arena.rate("strict-ticking", 1, Duration.ofHours(1), 8 * KEYS, ticking);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            arena.close();
            Files.deleteIfExists(file);
        }
    }

    /** A thread's own keys, so two threads never touch the same word. */
    @State(Scope.Thread)
    public static class Keys {
        final String[] keys = new String[KEYS];
        final byte[][] bytes = new byte[KEYS][];
        int next;

        @Setup(Level.Trial)
        public void make() {
            String prefix = "client-" + UUID.randomUUID().toString().substring(0, 8) + "-";
            for (int i = 0; i < KEYS; i++) {
                keys[i] = prefix + i;
                bytes[i] = keys[i].getBytes(StandardCharsets.UTF_8);
            }
        }

        byte[] nextBytes() {
            byte[] k = bytes[next];
            next = (next + 1) & (KEYS - 1);
            return k;
        }

        String next() {
            String k = keys[next];
            next = (next + 1) & (KEYS - 1);
            return k;
        }
    }

    @Benchmark
    public boolean distinctKeys(Arena a, Keys k) {
        return a.wide.allow(k.next());
    }

    /** As {@code distinctKeys} with the keys' UTF-8 bytes: the same buckets, the byte hash. */
    @Benchmark
    public boolean distinctByteKeys(Arena a, Keys k) {
        return a.wide.allow(k.nextBytes());
    }

    @Benchmark
    @Threads(2)
    public boolean distinctKeys2t(Arena a, Keys k) {
        return a.wide.allow(k.next());
    }

    @Benchmark
    public boolean hotKey(Arena a) {
        return a.hot.allow("203.0.113.7");
    }

    private static final byte[] HOT = "203.0.113.7".getBytes(StandardCharsets.US_ASCII);

    /** As {@code hotKey} with the key's bytes. */
    @Benchmark
    public boolean hotByteKey(Arena a) {
        return a.hot.allow(HOT);
    }

    /** As {@code distinctByteKeys} on a limiter reading {@code Clock.ticking(1 ms)}. */
    @Benchmark
    public boolean distinctByteKeysTicking(Arena a, Keys k) {
        return a.wideTicking.allow(k.nextBytes());
    }

    /** As {@code hotByteKey} on a limiter reading {@code Clock.ticking(1 ms)}. */
    @Benchmark
    public boolean hotByteKeyTicking(Arena a) {
        return a.hotTicking.allow(HOT);
    }

    /** As {@code distinctByteKeysTicking}, every call (after the first pass) refused: no CAS. */
    @Benchmark
    public boolean distinctByteKeysRefusedTicking(Arena a, Keys k) {
        return a.strictTicking.allow(k.nextBytes());
    }

    /** The read-only part of {@code distinctByteKeysTicking}: hash, group read, arithmetic; no write, no counter. */
    @Benchmark
    public double distinctByteKeysRetryAfterTicking(Arena a, Keys k) {
        return a.wideTicking.retryAfter(k.nextBytes());
    }

    /** The ticking clock's reading alone. */
    @Benchmark
    public long tickingClock(Arena a) {
        return a.ticking.nanoTime();
    }

    @Benchmark
    @Threads(2)
    public boolean hotKey2t(Arena a) {
        return a.hot.allow("203.0.113.7");
    }

    /** The edge's primitive on the same workload as {@code distinctKeys}: policy per call, caller's clock reading. */
    @Benchmark
    public long gcraDistinctKeys(Arena a, Keys k) {
        return a.tenants.tryCharge(k.next(), 1_000L, 1_000_000_000L, System.nanoTime());
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}

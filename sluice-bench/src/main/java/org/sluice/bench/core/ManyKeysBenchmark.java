package org.sluice.bench.core;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One million keys chosen uniformly at random by two threads, every key present before
 * measurement. The limit (1/s, burst 10,000) admits every call for the length of the run
 * and keeps every row live, so no implementation sheds rows mid-run. {@code sluice-ticking}
 * and {@code yardstick-ticking} read the opt-in {@code Clock.ticking(1 ms)} in place of
 * {@code System.nanoTime()}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ManyKeysBenchmark {

    static final double RATE = 1;
    static final int BURST = 10_000;
    /** The opt-in coarse clock's tick of the two {@code -ticking} contenders, as in {@link HotKeyBenchmark}. */
    static final java.time.Duration TICK = java.time.Duration.ofMillis(1);

    @Param({"1000000"})
    public int keys;

    @Param({"sluice", "sluice-ticking", "yardstick", "yardstick-ticking", "bucket4j-caffeine", "bucket4j-map"})
    public String impl;

    private String[] names;
    private int kind;
    private org.sluice.core.RateLimiter sluice;
    private Yardstick yardstick;
    private Competitors.Bucket4jCaffeine caffeine;
    private Competitors.Bucket4jMap map;

    @Setup(Level.Trial)
    public void setUp() {
        names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "tenant-" + i;
            var unused = names[i].hashCode(); // caches the string's hash before the trial
        }
        org.sluice.core.Clock ticking = impl.endsWith("-ticking") ? org.sluice.core.Clock.ticking(TICK) : null;
        switch (impl) {
            case "sluice" -> sluice = Competitors.sluice(RATE, BURST);
            case "sluice-ticking" -> sluice = org.sluice.core.RateLimiter.builder()
                    .limit(org.sluice.core.Limit.of(RATE, BURST)).clock(ticking).build();
            case "yardstick" -> yardstick = new Yardstick(RATE, BURST);
            case "yardstick-ticking" -> yardstick = new Yardstick(RATE, BURST, ticking);
            case "bucket4j-caffeine" -> caffeine = new Competitors.Bucket4jCaffeine(RATE, BURST);
            case "bucket4j-map" -> map = new Competitors.Bucket4jMap(RATE, BURST);
            default -> throw new IllegalArgumentException("impl " + impl);
        }
        kind = sluice != null ? 0 : yardstick != null ? 1 : caffeine != null ? 2 : 3;
        for (String n : names) {
            chargeKey(n);
        }
    }

    /** Each thread draws its own keys. */
    @State(Scope.Thread)
    public static class Cursor {
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());

        int next(int bound) {
            return random.nextInt(bound);
        }
    }

    @Benchmark
    public boolean charge(Cursor cursor) {
        return chargeKey(names[cursor.next(keys)]);
    }

    private boolean chargeKey(String key) {
        // An int switch (perfectly predicted) rather than one method per implementation, so
        // that a trial holds only its own million rows in the heap.
        return switch (kind) {
            case 0 -> sluice.tryAcquire(key) == 0;
            case 1 -> yardstick.tryAcquire(key);
            case 2 -> caffeine.tryAcquire(key);
            default -> map.tryAcquire(key);
        };
    }
}

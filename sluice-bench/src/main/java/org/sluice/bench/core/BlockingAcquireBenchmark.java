package org.sluice.bench.core;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import org.sluice.core.Limit;
import org.sluice.core.Limiter;

/**
 * Eight threads blocking on one unkeyed limiter whose rate, not the callers, is the
 * bottleneck: {@value #RATE} permits a second in bursts of {@value #BURST}, one permit a
 * call. Sluice's {@code Limiter.acquire(1, timeout)} against Bucket4j's {@code
 * asBlocking().consume(1)} on the same limit.
 *
 * <p>The score is permits a second for all threads together: both should come close to
 * the rate, and a score well under it means the waiting itself wastes the limit (threads
 * asleep while permits go unclaimed). Three more figures are printed after each
 * iteration, since JMH's scores cannot hold them: the permits each thread got, their
 * fairness (the largest over the smallest share, and Jain's index {@code (sum x)^2 / (n
 * sum x^2)}, 1 when every thread got the same), and the process's CPU time per permit
 * ({@code getProcessCpuTime} over the iteration), what the waiting costs the machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(BlockingAcquireBenchmark.THREADS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
public class BlockingAcquireBenchmark {

    static final int THREADS = 8;
    static final int RATE = 100_000;
    static final int BURST = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Counters a cache line apart, so the threads' counts do not share one. */
    private static final int STRIDE = 16;

    @Param({"sluice", "bucket4j"})
    public String impl;

    private Limiter sluice;
    private Bucket bucket4j;
    private final AtomicLongArray permits = new AtomicLongArray(THREADS * STRIDE);
    private final long[] before = new long[THREADS];
    private long cpuBefore;

    @Setup(Level.Trial)
    public void setUp() {
        switch (impl) {
            case "sluice" -> sluice = Limiter.builder().bandwidth(Limit.of(RATE, BURST)).build();
            case "bucket4j" -> bucket4j = Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(BURST).refillGreedy(RATE, Duration.ofSeconds(1)).build())
                    .build();
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        for (int t = 0; t < THREADS; t++) {
            before[t] = permits.get(t * STRIDE);
        }
        cpuBefore = processCpuNanos();
    }

    @TearDown(Level.Iteration)
    public void reportIteration() {
        long cpu = processCpuNanos() - cpuBefore;
        long[] got = new long[THREADS];
        for (int t = 0; t < THREADS; t++) {
            got[t] = permits.get(t * STRIDE) - before[t];
        }
        System.out.println(Fairness.of(got).describe(impl, cpu));
    }

    /** The caller's index among the benchmark's threads, for its counter. */
    @State(Scope.Thread)
    public static class Caller {
        int slot;

        @Setup(Level.Trial)
        public void setUp(ThreadParams params) {
            slot = params.getThreadIndex() * STRIDE;
        }
    }

    @Benchmark
    public void acquire(Caller caller) throws InterruptedException {
        if (sluice != null) {
            if (!sluice.acquire(1, TIMEOUT)) {
                throw new IllegalStateException("a permit took longer than " + TIMEOUT);
            }
        } else {
            bucket4j.asBlocking().consume(1);
        }
        permits.incrementAndGet(caller.slot);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** How evenly an iteration's permits went to the threads. */
    record Fairness(long[] perThread, long total, double maxOverMin, double jain) {

        static Fairness of(long[] perThread) {
            long total = 0;
            long max = Long.MIN_VALUE;
            long min = Long.MAX_VALUE;
            double squares = 0;
            for (long x : perThread) {
                total += x;
                max = Math.max(max, x);
                min = Math.min(min, x);
                squares += (double) x * x;
            }
            double jain = squares == 0 ? 0 : (double) total * total / (perThread.length * squares);
            return new Fairness(perThread, total, min == 0 ? Double.POSITIVE_INFINITY : (double) max / min, jain);
        }

        String describe(String impl, long cpuNanos) {
            StringBuilder each = new StringBuilder();
            for (long x : perThread) {
                each.append(each.length() == 0 ? "" : " ").append(x);
            }
            return String.format(Locale.ROOT, "%n  [%s] permits %d, per thread [%s], max/min %.3f, Jain %.4f, cpu %.0f ns a permit",
                    impl, total, each, maxOverMin, jain, total == 0 ? Double.NaN : (double) cpuNanos / total);
        }
    }
}

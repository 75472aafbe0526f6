package org.sluice.bench.core;

import io.github.bucket4j.Bucket;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.sluice.core.BucketTable;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.shm.SharedArena;
import org.sluice.shm.SharedRate;

/**
 * The cases of {@code HotKeyBenchmark} (flood) and {@code SharedRateBench}'s ticking
 * byte-key cases measured in each thread's CPU time instead of wall time: on a machine
 * shared with other builds a JMH score is mostly the time a benchmark thread spent
 * descheduled, while CPU time per call counts only the time it ran. One case per JVM (so
 * the JIT's profile is that case's alone):
 * <pre>
 *   java -cp sluice-bench/target/benchmarks.jar org.sluice.bench.core.RefusalCpuTime CASE [threads] [seconds]
 * </pre>
 * CASE: sluiceTicking, sluiceTickingEqualKeys (two equal copies of the key in turn), sluice,
 * tableTicking, tableTickingLongAdder, bucket4j (the hot-key flood: 100/s, burst 50, key
 * "tenant-hot"); shmDistinctTicking, shmRefusedTicking,
 * shmRetryAfterTicking, shmHotTicking (SharedRate with {@code Clock.ticking(1 ms)} on an
 * arena in /dev/shm, 1024 keys per thread). Prints CPU ns per call per thread (the
 * figure to compare: the least over windows of 200 000 calls, which filters out the
 * windows another process disturbed) and wall ns per call. Not a JMH benchmark: warm-up
 * is a plain first run of the same length, results are the mean over the threads.
 */
public final class RefusalCpuTime {

    private static final String KEY = "tenant-hot";
    private static final int KEYS = 1024;
    /** Calls per CPU-time window: a few milliseconds, about one time slice. */
    private static final int WINDOW = 200_000;

    private RefusalCpuTime() {
    }

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "sluiceTicking";
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 4;
        Path file = null;
        SharedArena arena = null;
        LongSupplier[] calls = new LongSupplier[threads];
        Clock ticking = Clock.ticking(Duration.ofMillis(1));
        if (which.startsWith("shm")) {
            file = SharedArena.defaultFile("sluice-cpu-" + UUID.randomUUID());
            arena = SharedArena.create(file, 16 << 20);
            SharedRate wide = arena.rate("wide", 1_000_000, Duration.ofSeconds(1), 8 * KEYS * threads, ticking);
            SharedRate strict = arena.rate("strict", 1, Duration.ofHours(1), 8 * KEYS * threads, ticking);
            SharedRate hot = arena.rate("hot", 1000, Duration.ofSeconds(1), 64, ticking);
            byte[] hotKey = "203.0.113.7".getBytes(StandardCharsets.US_ASCII);
            for (int t = 0; t < threads; t++) {
                byte[][] keys = new byte[KEYS][];
                String prefix = "client-" + UUID.randomUUID().toString().substring(0, 8) + "-";
                for (int i = 0; i < KEYS; i++) {
                    keys[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
                }
                int[] next = {0};
                calls[t] = switch (which) {
                    case "shmDistinctTicking" -> () -> wide.allow(keys[next[0]++ & (KEYS - 1)]) ? 1 : 0;
                    case "shmRefusedTicking" -> () -> strict.allow(keys[next[0]++ & (KEYS - 1)]) ? 1 : 0;
                    case "shmRetryAfterTicking" -> () -> (long) wide.retryAfter(keys[next[0]++ & (KEYS - 1)]);
                    case "shmHotTicking" -> () -> hot.allow(hotKey) ? 1 : 0;
                    default -> throw new IllegalArgumentException("unknown case " + which);
                };
            }
        } else {
            org.sluice.core.RateLimiter sluiceTicking = org.sluice.core.RateLimiter.builder()
                    .limit(Limit.of(100, 50)).clock(ticking).build();
            org.sluice.core.RateLimiter sluice = Competitors.sluice(100, 50);
            BucketTable table = new BucketTable();
            long increment = Limit.of(100, 50).intervalNanos();
            long tolerance = Limit.of(100, 50).toleranceNanos();
            LongAdder denied = new LongAdder();
            Bucket bucket4j = Competitors.bucket4j(100, 50);
            LongSupplier call = switch (which) {
                case "sluiceTicking" -> () -> sluiceTicking.tryAcquire(KEY);
                case "sluice" -> () -> sluice.tryAcquire(KEY);
                case "tableTicking" -> () -> table.tryCharge(KEY, increment, tolerance, ticking.nanoTime());
                case "tableTickingLongAdder" -> () -> {
                    long w = table.tryCharge(KEY, increment, tolerance, ticking.nanoTime());
                    denied.increment();
                    return w;
                };
                case "bucket4j" -> () -> bucket4j.tryConsume(1) ? 1 : 0;
                case "sluiceTickingEqualKeys" -> null; // per thread, below
                default -> throw new IllegalArgumentException("unknown case " + which);
            };
            java.util.Arrays.fill(calls, call);
            if (which.equals("sluiceTickingEqualKeys")) {
                for (int t = 0; t < threads; t++) {
                    String[] copies = {new String(KEY), new String(KEY)};
                    int[] next = {0};
                    calls[t] = () -> sluiceTicking.tryAcquire(copies[next[0]++ & 1]);
                }
            }
        }
        run(calls, seconds); // warm-up
        double[] r = run(calls, seconds);
        System.out.printf(Locale.ROOT, "%s threads=%d cpu_ns_per_call=%.2f wall_ns_per_call=%.2f load=%s%n", which, threads, r[0], r[1],
                Files.readString(Path.of("/proc/loadavg")).trim());
        if (arena != null) {
            arena.close();
            Files.deleteIfExists(file);
        }
    }

    /**
     * Each thread calls for {@code seconds} of wall time in windows of {@link #WINDOW}
     * calls; returns the mean over the threads of each one's least CPU ns per call in a
     * window (the windows in which no other process shared its core or evicted its
     * caches) and the mean wall ns per call.
     */
    private static double[] run(LongSupplier[] calls, double seconds) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int n = calls.length;
        double[] cpu = new double[n];
        double[] wall = new double[n];
        long[] sink = new long[n];
        CyclicBarrier start = new CyclicBarrier(n);
        Thread[] crowd = new Thread[n];
        long budget = (long) (seconds * 1e9);
        for (int t = 0; t < n; t++) {
            int me = t;
            crowd[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                LongSupplier c = calls[me];
                long s = 0;
                double best = Double.MAX_VALUE;
                long w0 = System.nanoTime();
                long w1;
                long count = 0;
                do {
                    long c0 = mx.getCurrentThreadCpuTime();
                    for (int i = 0; i < WINDOW; i++) {
                        s += c.getAsLong();
                    }
                    long c1 = mx.getCurrentThreadCpuTime();
                    best = Math.min(best, (double) (c1 - c0) / WINDOW);
                    count += WINDOW;
                    w1 = System.nanoTime();
                } while (w1 - w0 < budget);
                cpu[me] = best;
                wall[me] = (double) (w1 - w0) / count;
                sink[me] = s;
            }, "cpu-time-" + t);
            crowd[t].start();
        }
        for (Thread th : crowd) {
            th.join();
        }
        double c = 0;
        double w = 0;
        for (int t = 0; t < n; t++) {
            c += cpu[t] / n;
            w += wall[t] / n;
        }
        if (sink[0] == 42) {
            System.out.print("");
        }
        return new double[] {c, w};
    }
}

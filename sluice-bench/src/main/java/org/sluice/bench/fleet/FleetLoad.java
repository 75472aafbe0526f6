package org.sluice.bench.fleet;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.sluice.fleet.FleetAnswer;
import org.sluice.core.Limit;
import org.sluice.fleet.FleetClient;
import org.sluice.fleet.FleetGcra;
import org.sluice.fleet.FleetLimiter;
import org.sluice.fleet.FleetSettings;

/**
 * Closed-loop load against one Redis: {@code threads} callers each wait for their answer
 * before asking again (concurrency = threads). Reports decisions per second and latency
 * percentiles (HdrHistogram, microseconds).
 *
 * <pre>
 *   java -cp benchmarks.jar org.sluice.bench.fleet.FleetLoad --redis redis://127.0.0.1:PORT \
 *        --redis-pid PID --scenario sluice-hot|sluice-hot-dedupe|bucket4j-hot|sluice-10k|bucket4j-10k|pause \
 *        [--threads 64] [--seconds 10] [--warmup 5]
 * </pre>
 *
 * Every tenant's limit is one per second with a burst of a billion: nothing is refused
 * during a run (every decision takes the full write path in both tools), and every
 * bucket stays in debt, so neither tool's keys expire mid-run (Sluice's expire when
 * full again, Bucket4j's when refilled plus 10 s).
 */
public final class FleetLoad {

    private static final double RATE = 1;
    private static final int BURST = 1_000_000_000;
    /** Think time of each caller in the pause scenario: a steady offered load, not 64 spinning threads. */
    private static final long THINK_NANOS = 1_000_000;
    /** {@code -Dsluice.bench.breakdown=true}: split each Sluice call's latency (see {@link Breakdown}). */
    static final String BREAKDOWN_PROPERTY = "sluice.bench.breakdown";
    /** True while the measured part of a scenario runs (one scenario per JVM). */
    private static final AtomicBoolean MEASURING = new AtomicBoolean();
    /** redis-server's pid, when given: its CPU time over the measured part is reported per decision. */
    private static long redisPid = -1;

    interface Caller {
        /** One decision; true when it was answered by the store (not a fallback). */
        boolean call(String tenant);
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        String uri = required(args, "redis");
        String scenario = required(args, "scenario");
        int threads = Integer.parseInt(args.getOrDefault("threads", "64"));
        int seconds = Integer.parseInt(args.getOrDefault("seconds", "10"));
        int warmup = Integer.parseInt(args.getOrDefault("warmup", "5"));
        redisPid = Long.parseLong(args.getOrDefault("redis-pid", "-1"));
        switch (scenario) {
            case "sluice-hot" -> runSluice(uri, scenario, threads, warmup, seconds, 1, false);
            case "sluice-hot-dedupe" -> runSluice(uri, scenario, threads, warmup, seconds, 1, true);
            case "sluice-10k" -> runSluice(uri, scenario, threads, warmup, seconds, 10_000, false);
            case "limiter-hot" -> runLimiter(uri, scenario, threads, warmup, seconds, 1);
            case "limiter-10k" -> runLimiter(uri, scenario, threads, warmup, seconds, 10_000);
            case "bucket4j-hot" -> runBucket4j(uri, scenario, threads, warmup, seconds, 1);
            case "bucket4j-10k" -> runBucket4j(uri, scenario, threads, warmup, seconds, 10_000);
            case "pause" -> {
                runPause(uri, Long.parseLong(required(args, "redis-pid")), threads,
                        Integer.parseInt(args.getOrDefault("pause-seconds", "10")));
            }
            default -> throw new IllegalArgumentException("--scenario must be one of sluice-hot, sluice-hot-dedupe, "
                    + "bucket4j-hot, sluice-10k, bucket4j-10k, limiter-hot, limiter-10k, pause; got " + scenario);
        }
        System.exit(0);
    }

    // ------------------------------------------------------------------ scenarios

    private static void runSluice(String uri, String name, int threads, int warmup, int seconds, int tenants,
                                  boolean dedupe) throws InterruptedException {
        // a generous budget: this measures throughput, not the fallback
        FleetSettings settings = FleetSettings.defaults().withRedis(uri).withTimeoutMs(1_000)
                .withBreaker(1.0, Integer.MAX_VALUE, 10_000, 5_000);
        long inc = FleetGcra.micros(1, RATE);
        long tol = FleetGcra.micros(BURST, RATE);
        AtomicLong seq = new AtomicLong();
        Breakdown breakdown = Boolean.getBoolean(BREAKDOWN_PROPERTY) ? new Breakdown() : null;
        try (FleetClient fleet = FleetClient.start(settings, "bench-" + ProcessHandle.current().pid())) {
            Caller caller = tenant -> {
                String key = dedupe ? Long.toString(seq.incrementAndGet()) : null;
                long t0 = System.nanoTime();
                CompletableFuture<FleetAnswer> f = fleet.admit(tenant, "bench", key, inc, tol, 0, 0, true, dedupe)
                        .toCompletableFuture();
                FleetAnswer a = breakdown == null ? f.join() : breakdown.join(f, t0);
                if (dedupe && a.claimToken() != null) {
                    fleet.settleRelease(tenant, "bench", key, a.claimToken());
                }
                return !(a instanceof FleetAnswer.Fallback);
            };
            run(name, caller, threads, warmup, seconds, tenants);
            System.out.printf(Locale.ROOT, "# %s fallbacks: %s%n", name, fleet.stats());
            if (breakdown != null) {
                breakdown.print(name);
            }
        }
    }

    /**
     * The library's Redis scope, as a user of {@code sluice-fleet} calls it: {@link
     * FleetLimiter#tryAcquire(Object, long)}, one bandwidth like Bucket4j's one bucket.
     */
    private static void runLimiter(String uri, String name, int threads, int warmup, int seconds, int tenants)
            throws InterruptedException {
        FleetSettings settings = FleetSettings.defaults().withRedis(uri).withTimeoutMs(1_000)
                .withBreaker(1.0, Integer.MAX_VALUE, 10_000, 5_000);
        try (FleetLimiter limiter = FleetLimiter.builder(settings, "bench").bandwidth(Limit.of(RATE, BURST)).build()) {
            long before = limiter.fallbacks();
            Caller caller = tenant -> {
                limiter.tryAcquire(tenant, 1);
                return true; // the limiter counts its node-local answers: printed below
            };
            run(name, caller, threads, warmup, seconds, tenants);
            System.out.printf(Locale.ROOT, "# %s fallbacks: %d%n", name, limiter.fallbacks() - before);
        }
    }

    private static void runBucket4j(String uri, String name, int threads, int warmup, int seconds, int tenants)
            throws InterruptedException {
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, byte[]> conn =
                client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        try {
            ProxyManager<String> proxy = Bucket4jLettuce.casBasedBuilder(conn)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ofSeconds(10)))
                    .build();
            BucketConfiguration config = BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(BURST).refillGreedy((long) RATE, Duration.ofSeconds(1)))
                    .build();
            Caller caller = tenant -> {
                proxy.builder().build("b4j:" + tenant, () -> config).tryConsume(1);
                return true; // Bucket4j has no fallback: an answer is always the store's
            };
            run(name, caller, threads, warmup, seconds, tenants);
        } finally {
            conn.close();
            client.shutdown();
        }
    }

    /**
     * The worst wait a caller sees while the store is paused (SIGSTOP) for a few seconds:
     * {@code threads} callers, each waiting 1 ms between calls, on the default settings.
     */
    private static void runPause(String uri, long pid, int threads, int pauseSeconds) throws Exception {
        FleetSettings settings = FleetSettings.defaults().withRedis(uri); // the defaults: 20 ms budget, breaker on
        long inc = FleetGcra.micros(1, RATE);
        long tol = FleetGcra.micros(BURST, RATE);
        // warm the JIT with a generous budget first, so a cold JVM does not open the breaker
        try (FleetClient warm = FleetClient.start(settings.withTimeoutMs(1_000)
                .withBreaker(1.0, Integer.MAX_VALUE, 10_000, 5_000), "bench-warm")) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - until < 0) {
                warm.admit("warm", "bench", null, inc, tol, 0, 0, true, false).toCompletableFuture().join();
            }
        }
        try (FleetClient fleet = FleetClient.start(settings, "bench-pause")) {
            // one caller first, so the client's connection is warm before 64 callers arrive
            long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() - warmUntil < 0) {
                fleet.admit("warm", "bench", null, inc, tol, 0, 0, true, false).toCompletableFuture().join();
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean paused = new AtomicBoolean();
            List<Thread> workers = new ArrayList<>();
            List<Histogram> stored = new ArrayList<>(); // calls that went to the store (answered or timed out)
            List<Histogram> open = new ArrayList<>();   // calls answered by the open breaker
            for (int t = 0; t < threads; t++) {
                Histogram hs = new Histogram(TimeUnit.SECONDS.toMicros(120), 3);
                Histogram ho = new Histogram(TimeUnit.SECONDS.toMicros(120), 3);
                stored.add(hs);
                open.add(ho);
                String tenant = "tenant-" + t;
                Thread w = new Thread(() -> {
                    while (!stop.get()) {
                        boolean inPause = paused.get();
                        long t0 = System.nanoTime();
                        FleetAnswer a = fleet.admit(tenant, "bench", null, inc, tol, 0, 0, true, false)
                                .toCompletableFuture().join();
                        long us = (System.nanoTime() - t0) / 1_000;
                        if (inPause || paused.get()) {
                            boolean byBreaker = a instanceof FleetAnswer.Fallback f
                                    && f.reason() == FleetAnswer.Reason.BREAKER_OPEN;
                            Histogram h = byBreaker ? ho : hs;
                            h.recordValue(Math.min(us, h.getHighestTrackableValue()));
                        }
                        LockSupport.parkNanos(THINK_NANOS);
                    }
                });
                w.start();
                workers.add(w);
                Thread.sleep(10); // callers arrive over 0.64 s, not all in the same millisecond
            }
            Thread.sleep(2_000);
            String before = fleet.state().label();
            long callsBefore = fleet.stats().storeCalls();
            signal("-STOP", pid);
            paused.set(true);
            Thread.sleep(pauseSeconds * 1_000L);
            signal("-CONT", pid);
            Thread.sleep(200);
            paused.set(false);
            Thread.sleep(1_000);
            stop.set(true);
            for (Thread w : workers) {
                w.join();
            }
            System.out.printf(Locale.ROOT, "# before the pause: breaker %s, %d store calls made%n", before, callsBefore);
            Histogram hs = new Histogram(TimeUnit.SECONDS.toMicros(120), 3);
            Histogram ho = new Histogram(TimeUnit.SECONDS.toMicros(120), 3);
            stored.forEach(hs::add);
            open.forEach(ho::add);
            System.out.printf(Locale.ROOT,
                    "RESULT pause-store-calls threads=%d pause_s=%d budget_ms=%d calls=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d%n",
                    threads, pauseSeconds, settings.timeoutMs(), hs.getTotalCount(), hs.getValueAtPercentile(50),
                    hs.getValueAtPercentile(99), hs.getValueAtPercentile(99.9), hs.getMaxValue());
            System.out.printf(Locale.ROOT,
                    "RESULT pause-breaker-open threads=%d calls=%d p50_us=%d p99_us=%d p9999_us=%d max_us=%d breaker_now=%s%n",
                    threads, ho.getTotalCount(), ho.getValueAtPercentile(50), ho.getValueAtPercentile(99),
                    ho.getValueAtPercentile(99.99), ho.getMaxValue(), fleet.state());
            System.out.printf(Locale.ROOT, "# pause stats: %s%n", fleet.stats());
        }
        // Bucket4j on the same pause, one caller: its call waits on Lettuce's own command timeout
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, byte[]> conn =
                client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        try {
            ProxyManager<String> proxy = Bucket4jLettuce.casBasedBuilder(conn).build();
            BucketConfiguration config = BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(BURST).refillGreedy((long) RATE, Duration.ofSeconds(1)))
                    .build();
            proxy.builder().build("b4j:pause", () -> config).tryConsume(1);
            Thread resumer = new Thread(() -> {
                try {
                    Thread.sleep(pauseSeconds * 1_000L);
                    signal("-CONT", pid);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            signal("-STOP", pid);
            resumer.start();
            long t0 = System.nanoTime();
            String outcome;
            try {
                proxy.builder().build("b4j:pause", () -> config).tryConsume(1);
                outcome = "answered";
            } catch (RuntimeException e) {
                outcome = e.getClass().getSimpleName();
            }
            long us = (System.nanoTime() - t0) / 1_000;
            resumer.join();
            System.out.printf(Locale.ROOT, "RESULT pause-bucket4j pause_s=%d wait_us=%d outcome=%s%n",
                    pauseSeconds, us, outcome);
        } finally {
            conn.close();
            client.shutdown();
        }
    }

    /**
     * Where a Sluice call's time goes, as the caller sees it: {@code answered} runs from the
     * call to the moment its stage completes (on Lettuce's I/O thread: queueing for a
     * batch slot, the batch's round trip through Redis, decoding), {@code wakeup} from
     * there to the moment the waiting caller runs again (the OS scheduling a parked
     * thread). Diagnostic only: the extra completion stage costs a little, so the figures
     * of record are taken without it. Recorded while measuring, like the totals.
     */
    static final class Breakdown {
        private final List<Histogram[]> all = new CopyOnWriteArrayList<>();
        private final ThreadLocal<Histogram[]> mine = ThreadLocal.withInitial(() -> {
            Histogram[] h = {new Histogram(TimeUnit.SECONDS.toMicros(60), 3), new Histogram(TimeUnit.SECONDS.toMicros(60), 3)};
            all.add(h);
            return h;
        });

        /** Waits for {@code f}, a call made at {@code t0}, and records its two parts. */
        <T> T join(CompletableFuture<T> f, long t0) {
            long[] completedAt = new long[1];
            CompletableFuture<T> marked = f.whenComplete((v, e) -> completedAt[0] = System.nanoTime());
            T v = marked.join(); // join's happens-before edge publishes completedAt[0]
            long t2 = System.nanoTime();
            if (!MEASURING.get()) {
                return v;
            }
            Histogram[] h = mine.get();
            h[0].recordValue(Math.min((completedAt[0] - t0) / 1_000, h[0].getHighestTrackableValue()));
            h[1].recordValue(Math.min(Math.max(0, t2 - completedAt[0]) / 1_000, h[1].getHighestTrackableValue()));
            return v;
        }

        void print(String name) {
            Histogram answered = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            Histogram wakeup = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            for (Histogram[] h : all) {
                answered.add(h[0]);
                wakeup.add(h[1]);
            }
            for (Histogram h : List.of(answered, wakeup)) {
                System.out.printf(Locale.ROOT, "# %s breakdown %s: p50_us=%d p99_us=%d p999_us=%d max_us=%d%n",
                        name, h == answered ? "answered" : "wakeup", h.getValueAtPercentile(50),
                        h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
            }
        }
    }

    // ------------------------------------------------------------------ the loop

    private static void run(String name, Caller caller, int threads, int warmup, int seconds, int tenants)
            throws InterruptedException {
        String[] names = new String[tenants];
        for (int i = 0; i < tenants; i++) {
            names[i] = "tenant-" + i;
        }
        AtomicBoolean measuring = MEASURING;
        AtomicBoolean stop = new AtomicBoolean();
        List<Histogram> hists = new ArrayList<>();
        AtomicLong fallbacks = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            hists.add(h);
            int offset = t * 7919;
            Thread w = new Thread(() -> {
                long i = offset;
                while (!stop.get()) {
                    String tenant = names[(int) (i++ % tenants)];
                    long t0 = System.nanoTime();
                    boolean stored = caller.call(tenant);
                    long us = (System.nanoTime() - t0) / 1_000;
                    if (measuring.get()) {
                        h.recordValue(Math.min(us, h.getHighestTrackableValue()));
                        if (!stored) {
                            fallbacks.incrementAndGet();
                        }
                    }
                }
                done.countDown();
            });
            w.setDaemon(true);
            w.start();
        }
        Thread.sleep(warmup * 1_000L);
        long jvmCpu0 = jvmCpuNanos();
        long redisCpu0 = redisCpuNanos();
        measuring.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1_000L);
        measuring.set(false);
        long elapsed = System.nanoTime() - t0;
        long jvmCpu = jvmCpuNanos() - jvmCpu0;
        long redisCpu1 = redisCpuNanos();
        long redisCpu = redisCpu0 < 0 || redisCpu1 < 0 ? -1 : redisCpu1 - redisCpu0;
        stop.set(true);
        done.await(30, TimeUnit.SECONDS);
        Histogram all = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        for (Histogram h : hists) {
            all.add(h);
        }
        double perSecond = all.getTotalCount() / (elapsed / 1e9);
        long decisions = Math.max(1, all.getTotalCount());
        System.out.printf(Locale.ROOT,
                "RESULT %s threads=%d tenants=%d decisions_per_s=%.0f p50_us=%d p99_us=%d p999_us=%d max_us=%d fallbacks=%d"
                        + " jvm_cpu_us_per_decision=%.2f redis_cpu_us_per_decision=%.2f%n",
                name, threads, tenants, perSecond, all.getValueAtPercentile(50), all.getValueAtPercentile(99),
                all.getValueAtPercentile(99.9), all.getMaxValue(), fallbacks.get(),
                jvmCpu / 1e3 / decisions, redisCpu < 0 ? -1.0 : redisCpu / 1e3 / decisions);
    }

    /** This JVM's CPU time (user + system, all threads), in ns. */
    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * redis-server's CPU time (utime + stime of {@code /proc/<pid>/stat}, in clock ticks of
     * 10 ms), in ns; -1 when no pid was given or it cannot be read.
     */
    private static long redisCpuNanos() {
        if (redisPid < 0) {
            return -1;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(redisPid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command's ")": state is field 3, utime 14 and stime 15 (1-based in proc(5))
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", sig, Long.toString(pid)).inheritIO().start();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("kill " + sig + " " + pid + " failed");
        }
    }

    private static Map<String, String> parse(String[] argv) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", argv));
            }
            out.put(argv[i].substring(2), argv[++i]);
        }
        return out;
    }

    private static String required(Map<String, String> args, String name) {
        String v = args.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }
}

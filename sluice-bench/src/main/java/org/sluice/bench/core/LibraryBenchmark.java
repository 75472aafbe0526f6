package org.sluice.bench.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.local.LocalBucketBuilder;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Limiter;
import org.sluice.core.Probe;

/**
 * The library's calls against Bucket4j's (and, where they have one, Guava's and
 * Resilience4j's), one thread, every call admitted (limits far above the call rate, so
 * every call is the write path):
 * <ul>
 *   <li>{@code one*}: one unkeyed limiter of one bandwidth, one permit a call.</li>
 *   <li>{@code two*}: one unkeyed limiter of two bandwidths (Guava and Resilience4j have
 *       no second bandwidth).</li>
 *   <li>{@code two*Ticking}: the same, both libraries reading the opt-in coarse clock
 *       {@code Clock.ticking(1 ms)} (Bucket4j through a {@code TimeMeter} over it) instead
 *       of {@code System.nanoTime()}: what each library spends around the clock read, which
 *       is most of a call on the system clock. A documented option, not the default.</li>
 *   <li>{@code probe*}: one permit, answering remaining and wait from the same call
 *       (Sluice's caller-owned {@code Probe} against Bucket4j's {@code ConsumptionProbe}).</li>
 *   <li>{@code cost*}: five permits a call.</li>
 *   <li>{@code keys*}: a keyed limiter of two bandwidths on {@code long} keys, {@code keys}
 *       of them already present, drawn at random: Sluice's primitive overload against
 *       Bucket4j buckets in a Caffeine cache (the keyed setup its documentation suggests).</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class LibraryBenchmark {

    /** Per second: far above what one thread calls, so every call is admitted. */
    private static final double FAST = 1e9;
    private static final int FAST_BURST = 1_000_000_000;
    /** The keyed limits: 1,000 a second in bursts of 1,000, and 10,000 a minute. */
    private static final Limit PER_SECOND = Limit.of(1000, 1000);
    private static final Limit PER_MINUTE = Limit.of(10_000 / 60.0, 10_000);

    @Param({"1000000"})
    public int keys;

    /**
     * {@code on}: the keyed limiter's sweep runs on its default schedule, deleting rows
     * that refilled (here nearly all: a key is charged about every two seconds and
     * refills in milliseconds), and the next call re-makes them. {@code off}: no sweep,
     * so every call charges a row that exists: the charge path alone.
     */
    @Param({"on"})
    public String sweep;

    private Limiter sluiceOne;
    private Limiter sluiceTwo;
    private Bucket bucket4jOne;
    private Bucket bucket4jTwo;
    private Limiter sluiceTwoTicking;
    private Bucket bucket4jTwoTicking;
    private com.google.common.util.concurrent.RateLimiter guava;
    private AtomicRateLimiter resilience4j;
    private final Function<Long, Bucket> keyedFactory = k -> Bucket.builder()
            .addLimit(Bandwidth.builder().capacity(1000).refillGreedy(1000, Duration.ofSeconds(1)).build())
            .addLimit(Bandwidth.builder().capacity(10_000).refillGreedy(10_000, Duration.ofMinutes(1)).build())
            .build();

    @Setup(Level.Trial)
    public void setUp() {
        sluiceOne = Limiter.builder().bandwidth(Limit.of(FAST, FAST_BURST)).build();
        sluiceTwo = twoBandwidths(Limiter.builder());
        bucket4jOne = Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(FAST_BURST).refillGreedy((long) FAST, Duration.ofSeconds(1)).build())
                .build();
        bucket4jTwo = twoBandwidths(Bucket.builder());
        Clock ticking = Clock.ticking(Duration.ofMillis(1));
        sluiceTwoTicking = twoBandwidths(Limiter.builder().clock(ticking));
        bucket4jTwoTicking = twoBandwidths(Bucket.builder().withCustomTimePrecision(new TickingMeter(ticking)));
        guava = Competitors.guava(FAST);
        resilience4j = Competitors.resilience4j(FAST);
    }

    /** The {@code two*} limit: {@code FAST} and half of it a second, bursts of {@code FAST_BURST}. */
    private static Limiter twoBandwidths(Limiter.Builder b) {
        return b.bandwidth(Limit.of(FAST, FAST_BURST)).bandwidth(Limit.of(FAST / 2, FAST_BURST)).build();
    }

    private static Bucket twoBandwidths(LocalBucketBuilder b) {
        return b.addLimit(Bandwidth.builder().capacity(FAST_BURST).refillGreedy((long) FAST, Duration.ofSeconds(1)).build())
                .addLimit(Bandwidth.builder().capacity(FAST_BURST).refillGreedy((long) (FAST / 2), Duration.ofSeconds(1)).build())
                .build();
    }

    /** Bucket4j's clock read from the same coarse clock as Sluice's in the {@code two*Ticking} pair. */
    private record TickingMeter(Clock clock) implements TimeMeter {
        @Override
        public long currentTimeNanos() {
            return clock.nanoTime();
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }
    }

    /** The keyed trials fill their own table only, so a trial's heap holds one implementation's rows. */
    @State(Scope.Benchmark)
    public static class SluiceKeys {
        KeyedLimiter<Long> limiter;
        int keys;

        @Setup(Level.Trial)
        public void fill(LibraryBenchmark bench) {
            keys = bench.keys;
            limiter = KeyedLimiter.<Long>builder().bandwidth(PER_SECOND).bandwidth(PER_MINUTE)
                    .sweepInterval(bench.sweep.equals("on") ? KeyedLimiter.DEFAULT_SWEEP_INTERVAL : Duration.ZERO).build();
            for (long k = 0; k < keys; k++) {
                limiter.tryAcquire(k, 1);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jKeys {
        Cache<Long, Bucket> cache;
        Function<Long, Bucket> factory;
        int keys;

        @Setup(Level.Trial)
        public void fill(LibraryBenchmark bench) {
            keys = bench.keys;
            factory = bench.keyedFactory;
            cache = Caffeine.newBuilder().expireAfterAccess(Duration.ofMinutes(10)).build();
            for (long k = 0; k < keys; k++) {
                cache.get(k, factory).tryConsume(1);
            }
        }
    }

    /** Each thread's own probes and key draws. */
    @State(Scope.Thread)
    public static class Caller {
        final Probe probe = new Probe();
        final SplittableRandom random = new SplittableRandom(42);
    }

    @Benchmark
    public boolean oneSluice() {
        return sluiceOne.tryAcquire() == 0L;
    }

    @Benchmark
    public boolean oneBucket4j() {
        return bucket4jOne.tryConsume(1);
    }

    @Benchmark
    public boolean oneGuava() {
        return guava.tryAcquire();
    }

    @Benchmark
    public boolean oneResilience4j() {
        return resilience4j.acquirePermission(1);
    }

    @Benchmark
    public boolean twoSluice() {
        return sluiceTwo.tryAcquire() == 0L;
    }

    @Benchmark
    public boolean twoBucket4j() {
        return bucket4jTwo.tryConsume(1);
    }

    @Benchmark
    public boolean twoSluiceTicking() {
        return sluiceTwoTicking.tryAcquire() == 0L;
    }

    @Benchmark
    public boolean twoBucket4jTicking() {
        return bucket4jTwoTicking.tryConsume(1);
    }

    @Benchmark
    public long probeSluice(Caller caller) {
        Probe p = caller.probe;
        sluiceTwo.tryAcquire(1, p);
        return p.remaining();
    }

    @Benchmark
    public long probeBucket4j() {
        ConsumptionProbe p = bucket4jTwo.tryConsumeAndReturnRemaining(1);
        return p.getRemainingTokens();
    }

    @Benchmark
    public boolean costSluice() {
        return sluiceTwo.tryAcquire(5) == 0L;
    }

    @Benchmark
    public boolean costBucket4j() {
        return bucket4jTwo.tryConsume(5);
    }

    @Benchmark
    public boolean keysSluice(SluiceKeys s, Caller caller) {
        return s.limiter.tryAcquire((long) caller.random.nextInt(s.keys), 1) == 0L; // the primitive overload: no boxing
    }

    @Benchmark
    public boolean keysBucket4jCaffeine(Bucket4jKeys b, Caller caller) {
        return b.cache.get((long) caller.random.nextInt(b.keys), b.factory).tryConsume(1);
    }
}

package org.sluice.bench.core;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.sluice.core.BucketTable;
import org.sluice.core.Clock;

/**
 * One hot key charged by two threads. {@code admit}: a limit so high that every call is
 * admitted (the write path: every call moves the bucket). {@code flood}: 100/s with a
 * burst of 50, so nearly every call is refused (the read-only path a flood takes).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HotKeyBenchmark {

    private static final String KEY = "tenant-hot";
    private static final Duration TICK = Duration.ofMillis(1);

    @Param({"admit", "flood"})
    public String load;

    private org.sluice.core.RateLimiter sluice;
    private org.sluice.core.RateLimiter sluiceFixedClock;
    private org.sluice.core.RateLimiter sluiceTicking;
    /** The pieces of {@code sluiceTicking}, for the cost breakdown below (flood only). */
    private Clock ticking;
    private BucketTable table;
    private long increment;
    private long tolerance;
    private final LongAdder denied = new LongAdder();
    /** Read by the fixed clock: the limiter's own cost without a clock call (flood only). */
    private volatile long fixedNanos = System.nanoTime();
    private Yardstick yardstick;
    private Bucket bucket4j;
    private RateLimiter guava;
    private AtomicRateLimiter resilience4j;

    @Setup
    public void setUp() {
        double rate = load.equals("admit") ? 1e9 : 100;
        int burst = load.equals("admit") ? 1_000_000_000 : 50;
        sluice = Competitors.sluice(rate, burst);
        sluiceFixedClock = org.sluice.core.RateLimiter.builder()
                .limit(org.sluice.core.Limit.of(rate, burst)).clock(() -> fixedNanos).build();
        sluiceTicking = org.sluice.core.RateLimiter.builder()
                .limit(org.sluice.core.Limit.of(rate, burst)).clock(Clock.ticking(TICK)).build();
        ticking = Clock.ticking(TICK);
        table = new BucketTable();
        increment = org.sluice.core.Limit.of(rate, burst).intervalNanos();
        tolerance = org.sluice.core.Limit.of(rate, burst).toleranceNanos();
        yardstick = new Yardstick(rate, burst);
        bucket4j = Competitors.bucket4j(rate, burst);
        guava = Competitors.guava(rate);
        resilience4j = Competitors.resilience4j(rate);
    }

    @Benchmark
    public long sluice() {
        return sluice.tryAcquire(KEY);
    }

    /**
     * The clock call every contender makes once per decision ({@code System.nanoTime()}):
     * the floor under every figure in this class.
     */
    @Benchmark
    public long nanoTimeAlone() {
        return System.nanoTime();
    }

    /**
     * Sluice with a clock that reads a field instead of calling {@code System.nanoTime()}:
     * what the limiter itself costs. Meaningful under {@code flood} only (a fixed clock
     * admits nothing after the burst).
     */
    @Benchmark
    public long sluiceWithoutClockCall() {
        return sluiceFixedClock.tryAcquire(KEY);
    }

    /**
     * Sluice with the opt-in coarse clock ({@code Clock.ticking(1 ms)}): one volatile read
     * per decision instead of {@code System.nanoTime()}, at the documented cost of up to
     * {@code rate x 1 ms} extra admissions over an interval.
     */
    @Benchmark
    public long sluiceTicking() {
        return sluiceTicking.tryAcquire(KEY);
    }

    /** Two equal key strings that are different objects, taken in turn by each thread. */
    @State(Scope.Thread)
    public static class EqualKeys {
        final String[] keys = {new String(KEY), new String(KEY)};
        int next;
    }

    /**
     * {@code sluiceTicking} with the key as a server builds it: equal to the last one, but a
     * new object each call (two copies in turn). A repeated refusal is answered from the
     * limiter's refusal memo in both cases; here after an identity check that fails and a
     * {@code String.equals}.
     */
    @Benchmark
    public long sluiceTickingEqualKeys(EqualKeys k) {
        return sluiceTicking.tryAcquire(k.keys[k.next++ & 1]);
    }

    // ---------------------------------------------------------------- cost breakdown
    // sluiceTicking taken apart, one piece at a time (flood only): the ticking clock's
    // read alone; the table's refusal on that reading (hash, probe, word, Gcra) with no
    // counting; and the same plus the LongAdder increment that RateLimiter counted each
    // refusal with before it counted per thread (docs/bench-notes/ticking-clock.md,
    // "Where a refusal's time went"). sluiceTicking minus tableTicking is what RateLimiter adds now.

    /** The ticking clock's reading alone: one volatile load. */
    @Benchmark
    public long tickingClockAlone() {
        return ticking.nanoTime();
    }

    /** The table's charge on the ticking clock's reading, uncounted. */
    @Benchmark
    public long tableTicking() {
        return table.tryCharge(KEY, increment, tolerance, ticking.nanoTime());
    }

    /** {@code tableTicking} plus a shared {@code LongAdder} increment per call: the old per-call counting. */
    @Benchmark
    public long tableTickingLongAdder() {
        long wait = table.tryCharge(KEY, increment, tolerance, ticking.nanoTime());
        denied.increment();
        return wait;
    }

    @Benchmark
    public boolean yardstick() {
        return yardstick.tryAcquire(KEY);
    }

    @Benchmark
    public boolean bucket4j() {
        return bucket4j.tryConsume(1);
    }

    @Benchmark
    public boolean guava() {
        return guava.tryAcquire();
    }

    @Benchmark
    public boolean resilience4j() {
        return resilience4j.acquirePermission();
    }
}

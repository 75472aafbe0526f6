package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The limiter against a plain token bucket kept in exact integer nanoseconds: a level
 * of credit in [0, tau] that refills one ns per ns. Sweeps happen at arbitrary points and
 * must be invisible.
 */
class RateLimiterPropertiesTest {

    /** Emission intervals (ns) whose rate 1e9 / T round-trips exactly through Limit. */
    private static final long[] INTERVALS = {1L, 3L, 1_000L, 40_000L, 1_000_000L, 500_000_000L, 2_000_000_000L};

    enum Kind { CHARGE, SWEEP, RESET }

    record Op(Kind kind, int key, long gapUnits, long gapNanos, int cost) {
    }

    /** The reference: token-bucket level per key, in ns of credit. */
    static final class ReferenceBucket {
        final long interval;
        final long tau;
        long level;
        long at;

        ReferenceBucket(long interval, long tau, long now) {
            this.interval = interval;
            this.tau = tau;
            this.level = tau;
            this.at = now;
        }

        void advanceTo(long now) {
            long gained = now - at;
            level = gained >= tau - level ? tau : level + gained;
            at = now;
        }

        long charge(int cost, long now) {
            advanceTo(now);
            long need = cost * interval;
            if (need > tau) { // oversized: only into a full bucket, which it empties
                if (level == tau) {
                    level = 0;
                    return 0;
                }
                return tau - level;
            }
            if (need <= level) {
                level -= need;
                return 0;
            }
            return need - level;
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(16, Arbitraries.just(Kind.CHARGE)),
                        net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.SWEEP)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.RESET))),
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 3).withDistribution(net.jqwik.api.RandomDistribution.uniform()),
                Arbitraries.longs().between(0, 10_000),
                Arbitraries.integers().between(1, 40))
                .as(Op::new);
        return op.list().ofMaxSize(120);
    }

    /**
     * Clock origins anywhere but the two ends of the long range: there a theoretical
     * arrival time can land on one of the table's two reserved words and is moved up by
     * at most 2 ns (documented in BucketShard.tatWord and covered by BucketTableTest),
     * which this exact reference does not model. Regression: jqwik's edge case
     * {@code Long.MIN_VALUE} as the origin made remaining() differ by that 2 ns.
     */
    @Provide
    Arbitrary<Long> starts() {
        return Arbitraries.longs().between(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
    }

    private static RateLimiter limiter(long interval, int burst, TestClock clock) {
        Limit limit = Limit.of(1e9 / interval, burst);
        assertThat(limit.intervalNanos()).isEqualTo(interval);
        return RateLimiter.builder().limit(limit).clock(clock).sweepInterval(Duration.ZERO).build();
    }

    @Property(tries = 500)
    void agreesDecisionForDecisionWithAReferenceTokenBucket(
            @ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 0, max = 6) int intervalIndex,
            @ForAll @IntRange(min = 1, max = 20) int burst,
            @ForAll("starts") long start) {
        long interval = INTERVALS[intervalIndex];
        long tau = interval * burst;
        TestClock clock = new TestClock(start);
        RateLimiter limiter = limiter(interval, burst, clock);
        ReferenceBucket[] reference = new ReferenceBucket[3];
        for (int k = 0; k < 3; k++) {
            reference[k] = new ReferenceBucket(interval, tau, start);
        }
        for (Op op : ops) {
            // gaps mix whole intervals with odd nanoseconds so both exact and partial refills occur
            clock.advanceNanos(op.gapUnits() * interval + op.gapNanos() % interval);
            long now = clock.nanoTime();
            String key = "key-" + op.key();
            ReferenceBucket ref = reference[op.key()];
            switch (op.kind()) {
                case CHARGE -> {
                    int cost = 1 + (op.cost() - 1) % (2 * burst); // up to twice the burst: oversized too
                    long expected = ref.charge(cost, now);
                    long got = cost == 1 ? limiter.tryAcquire(key) : limiter.tryAcquire(key, cost);
                    assertThat(got).as("wait for cost %d at %d", cost, now).isEqualTo(expected);
                }
                case SWEEP -> limiter.sweepTick();
                case RESET -> {
                    limiter.reset(key);
                    ref.level = tau;
                    ref.at = now;
                }
            }
            ref.advanceTo(now);
            assertThat(limiter.remaining(key)).as("remaining of %s", key).isEqualTo((double) ref.level / interval);
        }
    }

    @Property(tries = 300)
    void admittedCostInEveryWindowIsAtMostBurstPlusRateTimesItsLength(
            @ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 0, max = 6) int intervalIndex,
            @ForAll @IntRange(min = 1, max = 20) int burst) {
        long interval = INTERVALS[intervalIndex];
        TestClock clock = new TestClock(0L);
        RateLimiter limiter = limiter(interval, burst, clock);
        List<long[]> admitted = new ArrayList<>(); // {time, cost}
        for (Op op : ops) {
            clock.advanceNanos(op.gapUnits() * interval / 2 + op.gapNanos() % interval);
            if (op.kind() == Kind.SWEEP) {
                limiter.sweepTick();
                continue;
            }
            int cost = 1 + (op.cost() - 1) % burst; // within the burst: the window bound's premise
            if (limiter.tryAcquire("key", cost) == 0L) {
                admitted.add(new long[] {clock.nanoTime(), cost});
            }
        }
        for (int i = 0; i < admitted.size(); i++) {
            long sum = 0;
            for (int j = i; j < admitted.size(); j++) {
                sum += admitted.get(j)[1];
                long a = admitted.get(i)[0];
                long b = admitted.get(j)[0];
                // sum <= burst + rate x (b - a), with rate = 1 / interval per ns, exactly in integers
                assertThat(sum * interval).as("window [%d, %d]", a, b).isLessThanOrEqualTo(burst * interval + (b - a));
            }
        }
    }
}

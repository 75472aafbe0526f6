package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The limiter, which answers repeated one-unit refusals from its refusal memo, against a
 * bare {@link BucketTable} charged with the same readings: decision for decision the same
 * answer and the same wait, through resets, sweeps, several-unit charges and equal keys
 * that are other objects. So a memo never refuses what the table would admit.
 */
class RefusalMemoPropertiesTest {

    enum Kind { ONE, MANY, RESET, SWEEP }

    record Op(Kind kind, int key, boolean freshString, long gap, int cost) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(20, Arbitraries.just(Kind.ONE)),
                        Tuple.of(3, Arbitraries.just(Kind.MANY)),
                        Tuple.of(2, Arbitraries.just(Kind.RESET)),
                        Tuple.of(2, Arbitraries.just(Kind.SWEEP))),
                Arbitraries.integers().between(0, 2),
                Arbitraries.of(true, false),
                // mostly no time at all or less than an interval, so refusals repeat and the memo answers
                Arbitraries.frequencyOf(
                        Tuple.of(4, Arbitraries.just(0L)),
                        Tuple.of(4, Arbitraries.longs().between(1, 999)),
                        Tuple.of(1, Arbitraries.longs().between(1_000, 30_000))),
                Arbitraries.integers().between(2, 12))
                .as(Op::new);
        return op.list().ofMaxSize(200);
    }

    @Property(tries = 600)
    void aMemoAnswersExactlyAsTheTableWould(
            @ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 8) int burst,
            @ForAll @IntRange(min = -3, max = 3) int origin) {
        long interval = 1_000L; // 1e6 per second
        long tolerance = interval * burst;
        TestClock clock = new TestClock(origin * 1_000_000_007L);
        RateLimiter limiter = RateLimiter.builder().limit(Limit.of(1e6, burst)).clock(clock)
                .sweepInterval(Duration.ZERO).build();
        BucketTable bare = new BucketTable();
        long admitted = 0;
        long denied = 0;
        for (Op op : ops) {
            clock.advanceNanos(op.gap());
            long now = clock.nanoTime();
            String key = op.freshString() ? new String("key-" + op.key()) : ("key-" + op.key()).intern();
            switch (op.kind()) {
                case ONE, MANY -> {
                    int cost = op.kind() == Kind.ONE ? 1 : op.cost();
                    long expected = bare.tryCharge(key, Gcra.increment(interval, cost), tolerance, now);
                    long got = cost == 1 ? limiter.tryAcquire(key) : limiter.tryAcquire(key, cost);
                    assertThat(got).as("wait of %s for %d at %d", key, cost, now).isEqualTo(expected);
                    if (got == 0L) {
                        admitted++;
                    } else {
                        denied++;
                    }
                }
                case RESET -> {
                    limiter.reset(key);
                    bare.reset(key);
                }
                case SWEEP -> {
                    limiter.sweepTick();
                    bare.sweepNext(now);
                }
            }
        }
        RateLimiter.Stats stats = limiter.stats();
        assertThat(stats.admitted()).isEqualTo(admitted);
        assertThat(stats.denied()).isEqualTo(denied);
    }
}

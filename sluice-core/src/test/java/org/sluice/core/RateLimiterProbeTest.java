package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The keyed limiter's probe: admitted, remaining and wait from the one charge. */
class RateLimiterProbeTest {

    private static final long MS = 1_000_000L;

    private final TestClock clock = new TestClock(99L);

    private RateLimiter limiter(Limit limit) {
        return RateLimiter.builder().limit(limit).clock(clock).sweepInterval(Duration.ZERO).build();
    }

    @Test
    void theProbeAnswersForTheKeyInOneCall() {
        RateLimiter limiter = limiter(Limit.of(10, 4));
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire("a", 3, probe)).isTrue();
        assertThat(probe.admitted()).isTrue();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isZero();
        assertThat(probe.resetNanos()).as("three units to refill at 10 a second").isEqualTo(300 * MS);

        assertThat(limiter.tryAcquire("a", 2, probe)).isFalse();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isEqualTo(100 * MS);

        assertThat(limiter.tryAcquire("b", 1, probe)).as("another key is full").isTrue();
        assertThat(probe.remaining()).isEqualTo(3L);

        clock.advanceMillis(100);
        assertThat(limiter.tryAcquire("a", 2, probe)).isTrue();
        assertThat(probe.remaining()).isZero();
        assertThat(limiter.stats().admitted()).isEqualTo(3L);
        assertThat(limiter.stats().denied()).isEqualTo(1L);
    }

    @Test
    void aCostAboveBurstKeepsTheKeyedRuleAndItsProbeSaysSo() {
        RateLimiter limiter = limiter(Limit.of(10, 4));
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire("a", 6, probe)).as("into a full bucket, which it empties").isTrue();
        assertThat(probe.remaining()).isZero();
        clock.advanceMillis(250);
        assertThat(limiter.tryAcquire("a", 6, probe)).as("only into a full bucket").isFalse();
        assertThat(probe.waitNanos()).isEqualTo(150 * MS);
        assertThat(probe.remaining()).isEqualTo(2L);
        assertThat(probe.resetNanos()).isEqualTo(150 * MS);
        assertThatThrownBy(() -> limiter.tryAcquire("a", 0, probe))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost must be at least 1, got 0");
    }

    record Call(int key, long gapNanos, int cost, boolean sweep) {
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 3_000_000_000L)),
                Arbitraries.integers().between(1, 6),
                Arbitraries.of(false, false, false, true)).as(Call::new).list().ofMaxSize(150);
    }

    /**
     * Per key, the keyed probes (of {@link RateLimiter} and of {@link KeyedLimiter}, costs
     * within the burst) answer exactly what a single limiter of the same limit answers.
     */
    @Property(tries = 200)
    void theKeyedProbeAgreesWithASingleLimiterPerKey(@ForAll("calls") List<Call> calls) {
        TestClock c = new TestClock(-1_000_000_000L);
        Limit limit = Limit.of(4, 6); // 250 ms a unit, bursts of 6
        RateLimiter keyed = RateLimiter.builder().limit(limit).clock(c).sweepInterval(Duration.ZERO).build();
        Map<Integer, Limiter> single = new HashMap<>();
        KeyedLimiter<String> keyedMany = KeyedLimiter.<String>builder().bandwidth(limit).clock(c).sweepInterval(Duration.ZERO).build();
        Probe got = new Probe();
        Probe want = new Probe();
        Probe many = new Probe();
        for (Call call : calls) {
            c.advanceNanos(call.gapNanos());
            if (call.sweep()) {
                keyed.sweepTick();
                keyedMany.sweepTick();
            }
            Limiter model = single.computeIfAbsent(call.key(), k -> Limiter.builder().bandwidth(limit).clock(c).build());
            boolean admitted = keyed.tryAcquire("k" + call.key(), call.cost(), got);
            assertThat(model.tryAcquire(call.cost(), want)).isEqualTo(admitted);
            assertThat(got.remaining()).isEqualTo(want.remaining());
            assertThat(got.waitNanos()).isEqualTo(want.waitNanos());
            assertThat(got.resetNanos()).isEqualTo(want.resetNanos());
            assertThat(keyedMany.tryAcquire("k" + call.key(), call.cost(), many)).isEqualTo(admitted);
            assertThat(many.remaining()).isEqualTo(want.remaining());
            assertThat(many.waitNanos()).isEqualTo(want.waitNanos());
            assertThat(many.resetNanos()).isEqualTo(want.resetNanos());
        }
    }
}

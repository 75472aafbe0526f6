package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The single limiter against the bound every bandwidth promises: over any sequence of
 * calls and costs on a manual clock, the permits admitted in any window of readings of
 * length {@code d} are at most {@code burst + d / T} for each bandwidth; a refusal changes
 * nothing; a probe agrees with what the next call at the same reading does.
 */
class LimiterPropertiesTest {

    record Bw(long interval, int burst) {
        Limit limit() {
            return Limit.of(1e9 / interval, burst);
        }
    }

    record Call(long gapNanos, int cost) {
    }

    /** One to three bandwidths of intervals from 1 us to 0.5 s and bursts from 1 to 20 (shared with {@link KeyedLimiterPropertiesTest}). */
    static Arbitrary<List<Bw>> anyBandwidths() {
        Arbitrary<Long> intervals = Arbitraries.of(1_000L, 40_000L, 1_000_000L, 500_000_000L);
        Arbitrary<Integer> bursts = Arbitraries.integers().between(1, 20);
        return Combinators.combine(intervals, bursts).as(Bw::new).list().ofMinSize(1).ofMaxSize(3);
    }

    @Provide
    Arbitrary<List<Bw>> bandwidths() {
        return anyBandwidths();
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 2_000_000_000L));
        return Combinators.combine(gaps, Arbitraries.integers().between(1, 20)).as(Call::new).list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void admittedPermitsStayWithinEveryBandwidthsBound(@ForAll("bandwidths") List<Bw> bws, @ForAll("calls") List<Call> calls) {
        TestClock clock = new TestClock(-5_000_000_000L);
        Limiter.Builder b = Limiter.builder().clock(clock);
        bws.forEach(bw -> b.bandwidth(bw.limit()));
        Limiter limiter = b.build();
        int maxPermits = bws.stream().mapToInt(Bw::burst).min().orElseThrow();

        int n = calls.size();
        long[] at = new long[n];
        long[] admitted = new long[n];
        Probe probe = new Probe();
        for (int i = 0; i < n; i++) {
            Call c = calls.get(i);
            clock.advanceNanos(c.gapNanos());
            long cost = Math.min(c.cost(), maxPermits);
            long before = limiter.remaining();
            boolean ok = limiter.tryAcquire(cost, probe);
            at[i] = clock.nanoTime();
            if (ok) {
                admitted[i] = cost;
                assertThat(before).isGreaterThanOrEqualTo(cost);
                assertThat(probe.remaining()).isEqualTo(before - cost);
            } else {
                assertThat(before).isLessThan(cost);
                assertThat(probe.waitNanos()).isPositive();
                // a refusal changes nothing, and the wait is exact: one ns short refuses again, the wait admits
                assertThat(limiter.remaining()).isEqualTo(before);
                assertThat(probe.remaining()).isEqualTo(before);
                long wait = probe.waitNanos();
                if (wait > 1) {
                    clock.advanceNanos(wait - 1);
                    assertThat(limiter.tryAcquire(cost)).isEqualTo(1L);
                    clock.advanceNanos(1);
                } else {
                    clock.advanceNanos(wait);
                }
                at[i] = clock.nanoTime();
                assertThat(limiter.tryAcquire(cost)).isZero();
                admitted[i] = cost;
            }
        }
        assertWithinEveryBound(bws, at, admitted, n);
    }

    /**
     * For every bandwidth and every window of the first {@code n} admissions (readings
     * {@code at}, permits {@code admitted}), the permits are at most {@code burst + d / T}.
     */
    static void assertWithinEveryBound(List<Bw> bws, long[] at, long[] admitted, int n) {
        for (Bw bw : bws) {
            for (int i = 0; i < n; i++) {
                long sum = 0;
                for (int j = i; j < n; j++) {
                    sum += admitted[j];
                    long elapsed = at[j] - at[i];
                    // sum x T <= burst x T + elapsed, in integers
                    assertThat(Math.multiplyHigh(sum, bw.interval())).isZero();
                    assertThat(sum * bw.interval()).isLessThanOrEqualTo(bw.burst() * bw.interval() + elapsed);
                }
            }
        }
    }
}

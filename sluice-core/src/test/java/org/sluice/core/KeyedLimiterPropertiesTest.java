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
import org.sluice.core.LimiterPropertiesTest.Bw;

/**
 * The keyed limiter against the bound every bandwidth promises, per key: over any
 * sequence of calls on a few keys ({@code long} and {@code String} ones), sweeps and
 * costs on a manual clock, the permits admitted to one key in any window of readings of
 * length {@code d} are at most {@code burst + d / T} for each bandwidth; a refusal changes
 * nothing; a probe agrees with what the next call at the same reading does.
 */
class KeyedLimiterPropertiesTest {

    /** A call on key {@code key} (even: a long key, odd: a String key), or a sweep of every shard when {@code key < 0}. */
    record Call(long gapNanos, int key, int cost) {
    }

    @Provide
    Arbitrary<List<Bw>> bandwidths() {
        return LimiterPropertiesTest.anyBandwidths();
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 2_000_000_000L));
        Arbitrary<Integer> keys = Arbitraries.integers().between(-1, 3);
        return Combinators.combine(gaps, keys, Arbitraries.integers().between(1, 20)).as(Call::new).list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void admittedPermitsPerKeyStayWithinEveryBandwidthsBound(@ForAll("bandwidths") List<Bw> bws, @ForAll("calls") List<Call> calls) {
        TestClock clock = new TestClock(-5_000_000_000L);
        KeyedLimiter.Builder<Object> b = KeyedLimiter.builder().clock(clock).sweepInterval(Duration.ZERO);
        bws.forEach(bw -> b.bandwidth(bw.limit()));
        KeyedLimiter<Object> limiter = b.build();
        int maxPermits = bws.stream().mapToInt(Bw::burst).min().orElseThrow();

        List<List<long[]>> perKey = new ArrayList<>(); // per key: {reading, permits} of each admission
        for (int k = 0; k < 4; k++) {
            perKey.add(new ArrayList<>());
        }
        Probe probe = new Probe();
        for (Call c : calls) {
            clock.advanceNanos(c.gapNanos());
            if (c.key() < 0) {
                for (int s = 0; s < KeyedTable.SHARDS; s++) {
                    limiter.sweepTick();
                }
                continue;
            }
            int k = c.key();
            Object key = k % 2 == 0 ? Long.valueOf(k * 1_000_003L) : "key-" + k;
            long cost = Math.min(c.cost(), maxPermits);
            long before = limiter.remaining(key);
            boolean ok = k % 2 == 0 ? limiter.tryAcquire(k * 1_000_003L, cost, probe) : limiter.tryAcquire(key, cost, probe);
            if (ok) {
                assertThat(before).isGreaterThanOrEqualTo(cost);
                assertThat(probe.remaining()).isEqualTo(before - cost);
                assertThat(limiter.remaining(key)).isEqualTo(probe.remaining());
            } else {
                assertThat(before).isLessThan(cost);
                assertThat(probe.waitNanos()).isPositive();
                assertThat(limiter.remaining(key)).as("a refusal changes nothing").isEqualTo(before);
                assertThat(probe.remaining()).isEqualTo(before);
                long wait = probe.waitNanos();
                if (wait > 1) {
                    clock.advanceNanos(wait - 1);
                    assertThat(limiter.tryAcquire(key, cost)).isEqualTo(1L);
                    clock.advanceNanos(1);
                } else {
                    clock.advanceNanos(wait);
                }
                assertThat(limiter.tryAcquire(key, cost)).isZero();
            }
            perKey.get(k).add(new long[] {clock.nanoTime(), cost});
        }
        for (List<long[]> admissions : perKey) {
            int n = admissions.size();
            long[] at = new long[n];
            long[] permits = new long[n];
            for (int i = 0; i < n; i++) {
                at[i] = admissions.get(i)[0];
                permits[i] = admissions.get(i)[1];
            }
            LimiterPropertiesTest.assertWithinEveryBound(bws, at, permits, n);
        }
    }
}

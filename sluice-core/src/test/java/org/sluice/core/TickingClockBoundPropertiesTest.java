package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The admission bound {@link Clock#ticking} documents, checked on the arithmetic: a
 * limiter fed readings that lag real time by up to {@code L} (and never decrease) admits,
 * over any real interval of length {@code d}, at most {@code burst + (d + L) / interval},
 * that is at most {@code rate x L} more than the exact bound {@code burst + d / interval}.
 * Real time and lags are generated, so nothing here depends on the machine's timing.
 */
class TickingClockBoundPropertiesTest {

    record Step(long advance, long lag) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        // real time advances by 0 to 3 intervals (interval 1 ms below), lag 0 to L (L = 5 ms)
        return Combinators.combine(
                        Arbitraries.longs().between(0, 3_000_000),
                        Arbitraries.longs().between(0, 5_000_000))
                .as(Step::new)
                .list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void admissionsOverARealIntervalExceedTheExactBoundByAtMostRateTimesLag(
            @ForAll("steps") List<Step> steps, @ForAll @IntRange(min = 1, max = 20) int burst) {
        long lagBound = 5_000_000L;
        Limit limit = Limit.of(1000, burst); // interval 1 ms
        long interval = limit.intervalNanos();
        long[] reading = {0};
        RateLimiter limiter = RateLimiter.builder().limit(limit).clock(() -> reading[0])
                .sweepInterval(java.time.Duration.ZERO).build();

        int n = steps.size();
        long[] real = new long[n];
        boolean[] admitted = new boolean[n];
        long t = 1_000_000_000L;
        long r = t - lagBound;
        for (int i = 0; i < n; i++) {
            t += steps.get(i).advance();
            r = Math.max(r, t - steps.get(i).lag()); // published readings: behind by at most L, never back
            reading[0] = r;
            real[i] = t;
            admitted[i] = limiter.tryAcquire("k") == 0;
        }
        for (int i = 0; i < n; i++) {
            int count = 0;
            for (int j = i; j < n; j++) {
                if (admitted[j]) {
                    count++;
                }
                long d = real[j] - real[i];
                assertThat(count).as("admitted between steps %d and %d (%d ns apart)", i, j, d)
                        .isLessThanOrEqualTo((int) (burst + (d + lagBound) / interval));
            }
        }
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class RetryPolicyPropertiesTest {

    private static RetryPolicy policy(long initial, long max) {
        return RetryPolicy.of("destinations.p", initial, max, 1_000, 259_200, List.of());
    }

    @Property(tries = 2000)
    void everyDelayLiesInTheJitterWindow(@ForAll @LongRange(min = 1, max = 10_000_000) long initial,
                                         @ForAll @LongRange(min = 0, max = 100_000_000_000L) long extra,
                                         @ForAll @IntRange(min = 1, max = 200) int attempt,
                                         @ForAll long seed) {
        RetryPolicy p = policy(initial, initial + extra);
        long base = p.backoff(attempt);
        long delay = p.nextDelay(attempt, new SplittableRandom(seed));
        // factor in [0.5, 1], as integers: 2 * delay >= base and delay <= base
        assertThat(2 * delay).isGreaterThanOrEqualTo(base);
        assertThat(delay).isLessThanOrEqualTo(base).isPositive();
    }

    @Property(tries = 2000)
    void theBackoffGrowsMonotonicallyAndNeverPassesItsCaps(@ForAll @LongRange(min = 1, max = 10_000_000) long initial,
                                                          @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long extra,
                                                          @ForAll @IntRange(min = 1, max = 199) int attempt) {
        RetryPolicy p = policy(initial, initial + extra);
        long here = p.backoff(attempt);
        long next = p.backoff(attempt + 1);
        assertThat(next).isGreaterThanOrEqualTo(here);
        assertThat(next).isLessThanOrEqualTo(p.maxMs());
        assertThat(here).isGreaterThanOrEqualTo(initial);
        // doubling exactly until the cap
        assertThat(next).isEqualTo(here > p.maxMs() / 2 ? p.maxMs() : 2 * here);
    }

    @Property(tries = 2000)
    void retryAfterIsHonouredUpToMaxMs(@ForAll @LongRange(min = 1, max = 100_000) long initial,
                                       @ForAll @LongRange(min = 0, max = 10_000_000) long extra,
                                       @ForAll @IntRange(min = 1, max = 100) int attempt,
                                       @ForAll long retryAfter,
                                       @ForAll long seed) {
        Assume.that(retryAfter >= 0);
        RetryPolicy p = policy(initial, initial + extra);
        long delay = p.nextDelay(attempt, new SplittableRandom(seed), retryAfter);
        assertThat(delay).isGreaterThanOrEqualTo(Math.min(retryAfter, p.maxMs()));
        assertThat(delay).isLessThanOrEqualTo(p.maxMs());
    }
}

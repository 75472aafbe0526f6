package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The single limiter's exact cases on a manual clock. */
class LimiterTest {

    private static final long MS = 1_000_000L;

    private final TestClock clock = new TestClock(123_456_789L);

    @Test
    void aFullBucketAdmitsBurstThenOnePerInterval() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(100, 5)).clock(clock).build();
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire()).isZero();
        }
        assertThat(limiter.tryAcquire()).isEqualTo(10 * MS);
        clock.advanceNanos(10 * MS - 1);
        assertThat(limiter.tryAcquire()).isEqualTo(1L);
        clock.advanceNanos(1);
        assertThat(limiter.tryAcquire()).isZero();
        assertThat(limiter.tryAcquire()).isEqualTo(10 * MS);
    }

    @Test
    void everyBandwidthMustAdmitAndTheWaitIsTheLargest() {
        // 10 per second in bursts of 10, and 12 per minute in bursts of 12
        Limiter limiter = Limiter.builder()
                .bandwidth(Limit.of(10, 10))
                .bandwidth(Limit.of(12 / 60.0, 12))
                .clock(clock).build();
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire()).isZero();
        }
        assertThat(limiter.tryAcquire()).as("the per-second bandwidth is empty").isEqualTo(100 * MS);
        clock.advanceMillis(1000);
        assertThat(limiter.tryAcquire(2)).isZero();
        // 12 taken from the per-minute bandwidth, refilled 0.2 in the second that passed:
        // the next permit is 5 s after the first, less the second already passed
        assertThat(limiter.tryAcquire()).as("the per-minute bandwidth is empty").isEqualTo(4000 * MS);
    }

    @Test
    void aRefusalChargesNoBandwidth() {
        // one per second in bursts of 1, and one per 10 s in bursts of 5
        Limiter limiter = Limiter.builder()
                .bandwidth(Limit.of(1, 1))
                .bandwidth(Limit.of(0.1, 5))
                .clock(clock).build();
        assertThat(limiter.tryAcquire()).isZero();
        // the first bandwidth refuses; the second would admit, and must not be charged
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire()).isEqualTo(1000 * MS);
        }
        for (int i = 0; i < 4; i++) {
            clock.advanceMillis(1000);
            assertThat(limiter.tryAcquire()).isZero();
        }
        // five charged on the slow bandwidth, 5 s after the first: 50 s of debt, 45 s left
        clock.advanceMillis(1000);
        assertThat(limiter.remaining()).isZero();
        assertThat(limiter.tryAcquire()).isEqualTo(5000 * MS);
    }

    @Test
    void aCostTakesThatManyPermitsAndWaitsForAllOfThem() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 10)).clock(clock).build();
        assertThat(limiter.tryAcquire(7)).isZero();
        assertThat(limiter.tryAcquire(4)).isEqualTo(100 * MS);
        assertThat(limiter.tryAcquire(3)).isZero();
        assertThat(limiter.tryAcquire(10)).isEqualTo(1000 * MS);
    }

    @Test
    void aCostAboveTheSmallestBurstIsAProgrammingError() {
        Limiter limiter = Limiter.builder()
                .bandwidth(Limit.of(100, 50))
                .bandwidth(Limit.of(10, 8))
                .clock(clock).build();
        assertThatThrownBy(() -> limiter.tryAcquire(9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be from 1 to the smallest burst of the limiter's bandwidths (8), got 9");
        assertThatThrownBy(() -> limiter.tryAcquire(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.tryAcquire(9, new Probe())).isInstanceOf(IllegalArgumentException.class);
        assertThat(limiter.tryAcquire(8)).isZero();
    }

    @Test
    void theProbeAnswersAdmittedRemainingAndWaitInOneCall() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 4)).clock(clock).build();
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire(3, probe)).isTrue();
        assertThat(probe.admitted()).isTrue();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isZero();

        assertThat(limiter.tryAcquire(2, probe)).isFalse();
        assertThat(probe.admitted()).isFalse();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isEqualTo(100 * MS);

        clock.advanceMillis(100);
        assertThat(limiter.tryAcquire(2, probe)).isTrue();
        assertThat(probe.remaining()).isZero();
    }

    @Test
    void aLimiterNeedsABandwidth() {
        assertThatThrownBy(() -> Limiter.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("at least one bandwidth is required, got none");
    }
}

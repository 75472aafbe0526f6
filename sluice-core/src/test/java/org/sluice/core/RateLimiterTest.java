package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    private final TestClock clock = new TestClock(123_456_789L);

    private RateLimiter limiter(double rate, int burst) {
        return RateLimiter.builder().limit(Limit.of(rate, burst)).clock(clock).sweepInterval(Duration.ZERO).build();
    }

    @Test
    void admitsBurstThenOnePerInterval() {
        RateLimiter l = limiter(100, 50); // T = 10 ms
        for (int i = 0; i < 50; i++) {
            assertThat(l.tryAcquire("key")).isZero();
        }
        assertThat(l.tryAcquire("key")).isEqualTo(10_000_000L);
        clock.advanceNanos(10_000_000L);
        assertThat(l.tryAcquire("key")).isZero();
        assertThat(l.tryAcquire("key")).isEqualTo(10_000_000L);
        assertThat(l.tryAcquire("other")).isZero();
        assertThat(l.stats()).isEqualTo(new RateLimiter.Stats(2, 52, 2, 0));
    }

    @Test
    void costIsChargedAsThatManyUnits() {
        RateLimiter l = limiter(2, 10); // T = 500 ms
        assertThat(l.tryAcquire("k", 7)).isZero();
        assertThat(l.remaining("k")).isEqualTo(3.0);
        assertThat(l.tryAcquire("k", 4)).isEqualTo(500_000_000L);
        assertThat(l.remaining("k")).isEqualTo(3.0);
        clock.advanceNanos(250_000_000L);
        assertThat(l.remaining("k")).isEqualTo(3.5);
    }

    @Test
    void costAboveBurstOnlyIntoAFullBucket() {
        RateLimiter l = limiter(1, 3);
        assertThat(l.tryAcquire("k")).isZero();
        assertThat(l.tryAcquire("k", 5)).isEqualTo(1_000_000_000L); // wait until full
        clock.advanceNanos(1_000_000_000L);
        assertThat(l.tryAcquire("k", 5)).isZero();
        assertThat(l.remaining("k")).isZero();
    }

    @Test
    void resetRefillsOneKey() {
        RateLimiter l = limiter(1, 2);
        l.tryAcquire("a", 2);
        l.tryAcquire("b", 2);
        l.reset("a");
        assertThat(l.remaining("a")).isEqualTo(2.0);
        assertThat(l.remaining("b")).isZero();
        assertThat(l.stats().keys()).isEqualTo(1L);
    }

    @Test
    void sixteenSweepTicksDeleteEveryFullBucket() {
        RateLimiter l = limiter(10, 1);
        for (int i = 0; i < 1_000; i++) {
            l.tryAcquire("tenant-" + i);
        }
        assertThat(l.stats().keys()).isEqualTo(1_000L);
        clock.advanceNanos(100_000_000L);
        int removed = 0;
        for (int i = 0; i < 16; i++) {
            removed += l.sweepTick();
        }
        assertThat(removed).isEqualTo(1_000);
        assertThat(l.stats()).isEqualTo(new RateLimiter.Stats(0, 1_000, 0, 1_000));
    }

    @Test
    void costBelowOneIsRefusedNamingIt() {
        RateLimiter l = limiter(1, 1);
        assertThatThrownBy(() -> l.tryAcquire("k", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cost must be at least 1, got 0");
        assertThatThrownBy(() -> l.tryAcquire("k", -3))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cost must be at least 1, got -3");
        assertThat(l.stats()).isEqualTo(new RateLimiter.Stats(0, 0, 0, 0));
    }

    @Test
    void builderErrorsNameTheFieldAndValue() {
        assertThatThrownBy(() -> RateLimiter.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessage("limit is required, got none");
        assertThatThrownBy(() -> RateLimiter.builder().sweepInterval(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sweepInterval must be zero or positive, got PT-1S");
        assertThatThrownBy(() -> RateLimiter.builder().limit(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> RateLimiter.builder().clock(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("clock");
    }

    @Test
    void nullKeyIsRefusedNamingIt() {
        RateLimiter l = limiter(1, 1);
        assertThatThrownBy(() -> l.tryAcquire(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
    }

    @Test
    void theSharedSweeperDoesNotKeepAnUnusedLimiterAlive() {
        WeakReference<RateLimiter> ref = new WeakReference<>(
                RateLimiter.builder().limit(Limit.of(1, 1)).sweepInterval(Duration.ofHours(1)).build());
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        assertThat(ref.get()).isNull();
    }

    @Test
    void theDefaultClockIsTheSystemClock() {
        RateLimiter l = RateLimiter.builder().limit(Limit.of(1, 3)).sweepInterval(Duration.ZERO).build();
        assertThat(l.tryAcquire("k", 3)).isZero();
        assertThat(l.tryAcquire("k")).isPositive();
    }
}

package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SweepMemoryBoundTest {

    @Test
    void aMillionInventedTenantKeysAreAllSweptAfterOneSweepCycle() {
        TestClock clock = new TestClock(0L);
        RateLimiter limiter = RateLimiter.builder().limit(Limit.of(1, 1)).clock(clock).sweepInterval(Duration.ZERO).build();
        long emptyCapacity = limiter.table().capacity();
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            assertThat(limiter.tryAcquire("tenant-" + i)).isZero();
        }
        assertThat(limiter.stats().keys()).isEqualTo(n);
        clock.advanceNanos(1_000_000_000L); // every bucket is full again
        for (int i = 0; i < 16; i++) {
            limiter.sweepTick();
        }
        assertThat(limiter.stats()).isEqualTo(new RateLimiter.Stats(0, n, 0, n));
        assertThat(limiter.table().capacity()).as("arrays shrink back: no key is retained").isEqualTo(emptyCapacity);
    }
}

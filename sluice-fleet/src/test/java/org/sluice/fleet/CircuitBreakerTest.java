package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.Together;

class CircuitBreakerTest {

    private final ManualClock clock = new ManualClock(123_456_789L);

    private CircuitBreaker breaker() {
        return new CircuitBreaker(clock, 0.5, 20, Duration.ofSeconds(10).toNanos(), Duration.ofSeconds(5).toNanos());
    }

    private static void calls(CircuitBreaker b, int n, boolean failed) {
        for (int i = 0; i < n; i++) {
            assertThat(b.acquire()).isEqualTo(CircuitBreaker.CALL);
            b.onCall(failed);
        }
    }

    @Test
    void staysClosedBelowMinCallsEvenIfAllFail() {
        CircuitBreaker b = breaker();
        calls(b, 19, true);
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
        calls(b, 1, true);
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void opensAtExactlyTheFailureRate() {
        CircuitBreaker b = breaker();
        calls(b, 11, false);
        calls(b, 10, true); // 10 of 21 < 0.5
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
        calls(b, 1, true); // 11 of 22 = 0.5
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void failuresOlderThanTheWindowAreForgotten() {
        CircuitBreaker b = breaker();
        calls(b, 19, true);
        clock.advance(Duration.ofSeconds(12));
        calls(b, 19, true);
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
        calls(b, 1, true);
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void openDeniesUntilOpenMsThenOneProbeDecides() {
        CircuitBreaker b = breaker();
        calls(b, 20, true);
        clock.advance(Duration.ofMillis(4_999));
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.DENIED);
        clock.advance(Duration.ofMillis(1));
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.PROBE);
        assertThat(b.state()).isEqualTo(BreakerState.PROBING);
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.DENIED);
        b.onProbe(true); // failed
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.DENIED);
        clock.advance(Duration.ofSeconds(5));
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.PROBE);
        b.onProbe(false);
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
        // the old failures were forgotten: one more failure does not reopen it
        calls(b, 1, true);
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void aLostProbeIsReplacedAfterOpenMs() {
        CircuitBreaker b = breaker();
        calls(b, 20, true);
        clock.advance(Duration.ofSeconds(5));
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.PROBE);
        clock.advance(Duration.ofSeconds(5));
        assertThat(b.acquire()).isEqualTo(CircuitBreaker.PROBE);
    }

    @Test
    void exactlyOneProbeAmongRacingThreads() throws Exception {
        for (int round = 0; round < 50; round++) {
            CircuitBreaker b = breaker();
            calls(b, 20, true);
            clock.advance(Duration.ofSeconds(5));
            AtomicInteger probes = new AtomicInteger();
            Together.run(8, t -> {
                for (int i = 0; i < 100; i++) {
                    if (b.acquire() == CircuitBreaker.PROBE) {
                        probes.incrementAndGet();
                    }
                }
            });
            assertThat(probes.get()).isEqualTo(1);
        }
    }
}

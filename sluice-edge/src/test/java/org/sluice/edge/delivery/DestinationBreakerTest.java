package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.sluice.edge.delivery.DestinationBreaker.Pass.ATTEMPT;
import static org.sluice.edge.delivery.DestinationBreaker.Pass.PROBE;
import static org.sluice.edge.delivery.DestinationBreaker.Pass.WAIT;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.DestinationBreaker.Pass;
import org.sluice.edge.delivery.DestinationBreaker.State;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.Together;

class DestinationBreakerTest {

    private static final long MS = 1_000_000L;

    private final ManualClock clock = new ManualClock(-5_000 * MS); // any origin works
    private final DestinationBreaker breaker = new DestinationBreaker(BreakerSettings.defaults(), clock);

    private void failInARow(int n) {
        for (int i = 0; i < n; i++) {
            Pass p = breaker.tryPass();
            assertThat(p).isEqualTo(ATTEMPT);
            breaker.failed(p);
        }
    }

    @Test
    void opensOnTheFifthFailureInARowAndNotBefore() {
        failInARow(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.failuresInARow()).isEqualTo(4);
        breaker.succeeded(breaker.tryPass());
        assertThat(breaker.failuresInARow()).isZero();
        failInARow(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        failInARow(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.tryPass()).isEqualTo(WAIT);
    }

    @Test
    void staysOpenExactlyOpenMsThenLetsOneProbeThrough() {
        failInARow(5);
        clock.advanceNanos(30_000 * MS - 1);
        assertThat(breaker.tryPass()).isEqualTo(WAIT);
        assertThat(breaker.waitNanos()).isEqualTo(1);
        clock.advanceNanos(1);
        assertThat(breaker.waitNanos()).isZero();
        assertThat(breaker.tryPass()).isEqualTo(PROBE);
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.waitNanos()).isEqualTo(Long.MAX_VALUE);
        clock.advance(Duration.ofHours(1));
        assertThat(breaker.tryPass()).isEqualTo(WAIT);
    }

    @Test
    void aSuccessfulProbeCloses() {
        failInARow(5);
        clock.advance(Duration.ofSeconds(30));
        breaker.succeeded(breaker.tryPass());
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.tryPass()).isEqualTo(ATTEMPT);
        assertThat(breaker.waitNanos()).isZero();
    }

    @Test
    void eachFailedProbeReopensForTwiceAsLongUpToMaxOpenMs() {
        failInARow(5);
        List<Long> openMs = new ArrayList<>();
        openMs.add(breaker.openNanos() / MS);
        for (int i = 0; i < 7; i++) {
            clock.advanceNanos(breaker.openNanos() - 1);
            assertThat(breaker.tryPass()).isEqualTo(WAIT);
            clock.advanceNanos(1);
            Pass probe = breaker.tryPass();
            assertThat(probe).isEqualTo(PROBE);
            breaker.failed(probe);
            assertThat(breaker.state()).isEqualTo(State.OPEN);
            openMs.add(breaker.openNanos() / MS);
        }
        assertThat(openMs).containsExactly(30_000L, 60_000L, 120_000L, 240_000L, 480_000L, 600_000L, 600_000L, 600_000L);
    }

    @Test
    void afterClosingTheNextOpeningStartsAtOpenMsAgain() {
        failInARow(5);
        clock.advance(Duration.ofSeconds(30));
        breaker.failed(breaker.tryPass());
        clock.advance(Duration.ofSeconds(60));
        breaker.succeeded(breaker.tryPass());
        failInARow(5);
        assertThat(breaker.openNanos()).isEqualTo(30_000 * MS);
        assertThat(breaker.waitNanos()).isEqualTo(30_000 * MS);
    }

    @Test
    void resultsOfAttemptsStartedBeforeOpeningChangeNothing() {
        List<Pass> inFlight = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            inFlight.add(breaker.tryPass());
        }
        for (int i = 0; i < 5; i++) {
            breaker.failed(inFlight.get(i));
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        clock.advance(Duration.ofSeconds(10));
        breaker.failed(inFlight.get(5)); // does not extend the open time
        breaker.succeeded(inFlight.get(6)); // does not close it
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.waitNanos()).isEqualTo(20_000 * MS);
        clock.advance(Duration.ofSeconds(20));
        Pass probe = breaker.tryPass();
        breaker.succeeded(inFlight.get(7)); // a straggler during the probe neither
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        breaker.succeeded(probe);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void anAbandonedProbeIsGivenToTheNextCaller() {
        failInARow(5);
        clock.advance(Duration.ofSeconds(30));
        Pass probe = breaker.tryPass();
        assertThat(probe).isEqualTo(PROBE);
        breaker.abandoned(probe);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.waitNanos()).isZero();
        assertThat(breaker.tryPass()).isEqualTo(PROBE);
        assertThat(breaker.tryPass()).isEqualTo(WAIT);
    }

    @Test
    void anAbandonedAttemptChangesNothing() {
        failInARow(4);
        breaker.abandoned(breaker.tryPass());
        assertThat(breaker.failuresInARow()).isEqualTo(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aWaitHasNoResult() {
        assertThatThrownBy(() -> breaker.failed(WAIT)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> breaker.succeeded(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void exactlyOneOfManyConcurrentCallersGetsTheProbe() throws InterruptedException {
        int threads = 8;
        for (int round = 0; round < 200; round++) {
            ManualClock c = new ManualClock();
            DestinationBreaker b = new DestinationBreaker(new BreakerSettings(1, 1, 1), c);
            b.failed(b.tryPass());
            c.advanceNanos(MS);
            AtomicInteger probes = new AtomicInteger();
            AtomicInteger waits = new AtomicInteger();
            Together.run(threads, t -> {
                for (int i = 0; i < 50; i++) {
                    Pass p = b.tryPass();
                    if (p == PROBE) {
                        probes.incrementAndGet();
                    } else if (p == WAIT) {
                        waits.incrementAndGet();
                    } else {
                        throw new AssertionError("an open breaker let an attempt through: " + p);
                    }
                }
            });
            assertThat(probes.get()).as("round %d", round).isEqualTo(1);
            assertThat(waits.get()).isEqualTo(threads * 50 - 1);
        }
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        assertThat(BreakerSettings.defaults()).isEqualTo(new BreakerSettings(5, 30_000, 600_000));
    }

    @Test
    void badSettingsAreAllReportedWithTheirKeyPaths() {
        assertThatThrownBy(() -> BreakerSettings.of("destinations.app", 0, 0, -1))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.errors()).containsExactly(
                        "destinations.app.breaker.failures must be an integer from 1 to 2147483647, got 0",
                        "destinations.app.breaker.open_ms must be an integer of at least 1, got 0",
                        "destinations.app.breaker.max_open_ms must be an integer of at least 1, got -1"));
        assertThatThrownBy(() -> BreakerSettings.of("destinations.app", 5, 30_000, 10_000))
                .isInstanceOf(SettingsException.class)
                .hasMessage("destinations.app.breaker.max_open_ms must be at least destinations.app.breaker.open_ms (30000), got 10000");
        assertThat(BreakerSettings.of("destinations.app", 3, 100, 100)).isEqualTo(new BreakerSettings(3, 100, 100));
    }
}

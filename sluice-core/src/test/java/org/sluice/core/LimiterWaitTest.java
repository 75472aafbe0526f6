package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The single limiter's blocking acquire and reserve, on a manual clock: nothing sleeps. */
class LimiterWaitTest {

    private static final long MS = 1_000_000L;

    private final TestClock clock = new TestClock(42L);
    private final ClockSleeper sleeper = new ClockSleeper(clock);
    /** Every wait asked for, in order; each one moves the clock by exactly that much. */
    private final List<Long> sleeps = sleeper.sleeps;

    private Limiter limiter(Limit... bandwidths) {
        Limiter.Builder b = Limiter.builder().clock(clock).sleeper(sleeper);
        List.of(bandwidths).forEach(b::bandwidth);
        return b.build();
    }

    @Test
    void acquireAdmitsAtOnceWhenThePermitsAreThere() throws InterruptedException {
        Limiter limiter = limiter(Limit.of(10, 3));
        assertThat(limiter.acquire(3, Duration.ZERO)).isTrue();
        assertThat(sleeps).isEmpty();
    }

    @Test
    void acquireWaitsExactlyTheLimitersWaitThenTakes() throws InterruptedException {
        Limiter limiter = limiter(Limit.of(10, 3), Limit.of(1, 5));
        assertThat(limiter.tryAcquire(3)).isZero();
        assertThat(limiter.acquire(2, Duration.ofSeconds(1))).isTrue();
        assertThat(sleeps).containsExactly(200 * MS);
        // five taken from the 1-per-second bandwidth 0.2 s apart: its wait is the larger
        assertThat(limiter.tryAcquire()).as("the two were charged on both").isEqualTo(800 * MS);
    }

    @Test
    void acquireGivesUpWithoutWaitingWhenTheWaitIsLongerThanTheTimeout() throws InterruptedException {
        Limiter limiter = limiter(Limit.of(10, 3));
        assertThat(limiter.tryAcquire(3)).isZero();
        assertThat(limiter.acquire(1, Duration.ofMillis(100).minusNanos(1))).isFalse();
        assertThat(sleeps).isEmpty();
        assertThat(limiter.remaining()).isZero();
        clock.advanceMillis(100);
        assertThat(limiter.remaining()).as("the refusal charged nothing").isEqualTo(1L);
        assertThat(limiter.acquire(2, Duration.ofMillis(100))).isTrue();
        assertThat(sleeps).containsExactly(100 * MS);
    }

    @Test
    void acquireWaitsAgainWhenAnotherCallerTookThePermitsFirst() throws InterruptedException {
        TestClock c = clock;
        Limiter[] self = new Limiter[1];
        int[] turns = {0};
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 1)).clock(c).sleeper(nanos -> {
            sleeps.add(nanos);
            c.advanceNanos(nanos);
            if (turns[0]++ == 0) {
                assertThat(self[0].tryAcquire()).as("a caller that barges in while we wait").isZero();
            }
        }).build();
        self[0] = limiter;
        assertThat(limiter.tryAcquire()).isZero();
        assertThat(limiter.acquire(1, Duration.ofMillis(200))).isTrue();
        assertThat(sleeps).containsExactly(100 * MS, 100 * MS);
    }

    @Test
    void anInterruptedWaitThrowsAndChargesNothing() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 1)).clock(clock).build(); // Sleeper.system()
        assertThat(limiter.tryAcquire()).isZero();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> limiter.acquire(1, Duration.ofDays(1))).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        clock.advanceMillis(100);
        assertThat(limiter.tryAcquire()).isZero();
    }

    @Test
    void anInterruptWhileTheSystemSleeperWaitsThrowsAndChargesNothing() throws InterruptedException {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(0.001, 1)).build(); // a permit each 1,000 s
        assertThat(limiter.tryAcquire()).isZero();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.set(new AssertionError("admitted: " + limiter.acquire(1, Duration.ofDays(1))));
            } catch (InterruptedException e) {
                outcome.set(Thread.currentThread().isInterrupted() ? new AssertionError("still interrupted", e) : e);
            }
        });
        waiter.start();
        while (waiter.getState() != Thread.State.TIMED_WAITING) { // parked in the sleeper
            Thread.onSpinWait();
        }
        waiter.interrupt();
        waiter.join();
        assertThat(outcome.get()).as("thrown, the interrupt status cleared as Thread.sleep does")
                .isInstanceOf(InterruptedException.class);
        assertThat(limiter.remaining()).isZero();
        assertThat(limiter.tryAcquire()).as("still one permit's wait away: nothing was charged").isPositive();
    }

    @Test
    void acquireChecksItsArguments() {
        Limiter limiter = limiter(Limit.of(10, 3));
        assertThatThrownBy(() -> limiter.acquire(1, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be zero or positive, got PT-0.000000001S");
        assertThatThrownBy(() -> limiter.acquire(4, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 4");
    }

    @Test
    void aVeryLongTimeoutSaturates() throws InterruptedException {
        Limiter limiter = limiter(Limit.of(10, 1));
        assertThat(limiter.tryAcquire()).isZero();
        assertThat(limiter.acquire(1, Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
        assertThat(sleeps).containsExactly(100 * MS);
    }

    @Test
    void reserveTakesNowAndAnswersWhenThePermitsAreYours() {
        Limiter limiter = limiter(Limit.of(10, 2), Limit.of(5, 10));
        assertThat(limiter.reserve(2)).isZero();
        assertThat(limiter.reserve(1)).isEqualTo(100 * MS);
        assertThat(limiter.reserve(2)).isEqualTo(300 * MS);
        assertThat(limiter.tryAcquire()).as("queued behind the reservations").isEqualTo(400 * MS);
        clock.advanceMillis(400);
        assertThat(limiter.tryAcquire()).isZero();
        assertThat(limiter.remaining()).as("the fast bandwidth is empty again").isZero();
        assertThatThrownBy(() -> limiter.reserve(3)).isInstanceOf(IllegalArgumentException.class);
    }
}

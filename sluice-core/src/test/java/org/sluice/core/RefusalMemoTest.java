package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimiter}'s refusal memo (its class comment): a repeated refusal of one key
 * is answered without the table, and every answer is still the table's: the same wait,
 * counted as denied, and never a refusal where the table would admit (after a reset, at
 * the end of the wait, for another key that is equal but not identical).
 */
class RefusalMemoTest {

    private final TestClock clock = new TestClock(-5_000L); // readings may be negative

    private RateLimiter limiter(double rate, int burst) {
        return RateLimiter.builder().limit(Limit.of(rate, burst)).clock(clock).sweepInterval(Duration.ZERO).build();
    }

    @Test
    void aRememberedRefusalDoesNotOutliveAReset() {
        RateLimiter l = limiter(1, 1);
        assertThat(l.tryAcquire("k")).isZero();
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L); // refused by the table: remembered
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L); // refused by the memo
        l.reset("k");
        assertThat(l.tryAcquire("k")).as("a reset bucket admits at once").isZero();
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L);
        assertThat(l.stats()).isEqualTo(new RateLimiter.Stats(1, 2, 3, 0));
    }

    @Test
    void aResetOfAnotherKeyAlsoRetiresTheMemoAndChangesNoAnswer() {
        RateLimiter l = limiter(1, 1);
        l.tryAcquire("k");
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L);
        l.reset("other");
        clock.advanceNanos(400_000_000L);
        assertThat(l.tryAcquire("k")).isEqualTo(600_000_000L);
    }

    @Test
    void aRememberedRefusalEndsExactlyAtItsWait() {
        RateLimiter l = limiter(100, 50); // T = 10 ms
        for (int i = 0; i < 50; i++) {
            l.tryAcquire("key");
        }
        assertThat(l.tryAcquire("key")).isEqualTo(10_000_000L);
        clock.advanceNanos(9_999_999L);
        assertThat(l.tryAcquire("key")).isEqualTo(1L);
        clock.advanceNanos(1L);
        assertThat(l.tryAcquire("key")).as("at until the table admits").isZero();
        assertThat(l.tryAcquire("key")).isEqualTo(10_000_000L);
        assertThat(l.stats()).isEqualTo(new RateLimiter.Stats(1, 51, 3, 0));
    }

    @Test
    void anEqualKeyThatIsAnotherObjectIsRefusedFromTheMemoWithTheSameWait() {
        RateLimiter l = limiter(1, 1);
        l.tryAcquire(new String("tenant-7"));
        assertThat(l.tryAcquire(new String("tenant-7"))).isEqualTo(1_000_000_000L);
        clock.advanceNanos(1_000L);
        assertThat(l.tryAcquire(new String("tenant-7"))).isEqualTo(999_999_000L);
        assertThat(l.tryAcquire("tenant-8")).as("another key is not refused by the memo").isZero();
        assertThat(l.tryAcquire("tenant-7")).isEqualTo(999_999_000L);
    }

    @Test
    void aSweepDoesNotMakeTheMemoWrong() {
        RateLimiter l = limiter(1, 2);
        l.tryAcquire("k", 2);
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L);
        clock.advanceNanos(2_000_000_000L); // full again
        for (int i = 0; i < 16; i++) {
            l.sweepTick();
        }
        assertThat(l.stats().keys()).isZero();
        assertThat(l.tryAcquire("k")).isZero();
        assertThat(l.tryAcquire("k")).isZero();
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L);
    }

    @Test
    void manyUnitChargesNeitherReadNorWriteTheMemo() {
        RateLimiter l = limiter(1, 4);
        l.tryAcquire("k", 4);
        assertThat(l.tryAcquire("k", 3)).isEqualTo(3_000_000_000L); // not remembered
        clock.advanceNanos(1_000_000_000L);
        assertThat(l.tryAcquire("k")).isZero();
        assertThat(l.tryAcquire("k")).isEqualTo(1_000_000_000L); // remembered
        assertThat(l.tryAcquire("k", 2)).as("the table's wait for 2 units, not the memo's for 1").isEqualTo(2_000_000_000L);
    }

    /**
     * Two threads flood one key while a third resets it again and again: every call is
     * counted once, and admissions are at most one per reset plus the first (a memo never
     * admits). The race of one refusal with one reset is checked by jcstress
     * ({@code RefusalMemoStress}).
     */
    @Test
    void countsStayExactUnderAFloodWithResets() throws InterruptedException {
        RateLimiter l = limiter(1, 1); // the clock never moves: only resets refill
        AtomicLong admittedSeen = new AtomicLong();
        int calls = 200_000;
        Thread[] flood = new Thread[2];
        for (int t = 0; t < flood.length; t++) {
            flood[t] = new Thread(() -> {
                for (int i = 0; i < calls; i++) {
                    if (l.tryAcquire("hot") == 0L) {
                        admittedSeen.incrementAndGet();
                    }
                }
                l.reset("hot"); // one more refill per thread, counted in the bound below
                if (l.tryAcquire("hot") == 0L) {
                    admittedSeen.incrementAndGet();
                }
            });
            flood[t].start();
        }
        long resets = 0;
        while (flood[0].isAlive() || flood[1].isAlive()) {
            l.reset("hot");
            resets++;
            Thread.yield();
        }
        for (Thread t : flood) {
            t.join();
        }
        RateLimiter.Stats s = l.stats();
        assertThat(s.admitted() + s.denied()).isEqualTo(2L * calls + 2);
        assertThat(s.admitted()).isEqualTo(admittedSeen.get()).isBetween(1L, resets + 3L);
    }
}

package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link Tally}: per-thread plain counts, exact once the counting threads have been
 * joined, whether a thread owns a slot, shares one (the adder path) or has ended and had
 * its slot reclaimed.
 */
class TallyTest {

    /** Runs {@code threads} threads that each count {@code admitted} admissions and {@code denied} refusals, interleaved, and joins them. */
    private static void countIn(Tally tally, int threads, int admitted, int denied) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> crowd = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < Math.max(admitted, denied); i++) {
                    if (i < admitted) {
                        tally.count(Tally.ADMITTED);
                    }
                    if (i < denied) {
                        tally.count(Tally.DENIED);
                    }
                }
            }, "tally-test-" + t);
            crowd.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : crowd) {
            th.join();
        }
    }

    @Test
    void countsOfThreadsThatOwnTheirSlotAreExactAfterJoin() throws InterruptedException {
        Tally tally = new Tally(1024);
        countIn(tally, 4, 100_000, 70_000);
        assertThat(tally.admitted()).isEqualTo(400_000L);
        assertThat(tally.denied()).isEqualTo(280_000L);
    }

    @Test
    void threadsSharingOneSlotLoseNoCount() throws InterruptedException {
        Tally tally = new Tally(1); // every thread maps to slot 0: one owns it, the rest take the adder path
        countIn(tally, 6, 50_000, 30_000);
        assertThat(tally.admitted()).isEqualTo(300_000L);
        assertThat(tally.denied()).isEqualTo(180_000L);
    }

    @Test
    void endedThreadsSlotsAreReclaimedAndTheirCountsKept() throws InterruptedException {
        Tally tally = new Tally(4);
        for (int round = 1; round <= 5; round++) {
            countIn(tally, 4, 1000, 10);
            int owned = tally.owned();
            assertThat(owned).isPositive();
            assertThat(tally.reclaim()).isEqualTo(owned); // every owner has been joined
            assertThat(tally.owned()).isZero();
            assertThat(tally.admitted()).isEqualTo(round * 4_000L);
            assertThat(tally.denied()).isEqualTo(round * 40L);
        }
    }

    @Test
    void reclaimLeavesASlotOfALiveThreadAlone() {
        Tally tally = new Tally(1);
        tally.count(Tally.ADMITTED); // this thread owns slot 0 and is alive
        assertThat(tally.reclaim()).isZero();
        assertThat(tally.owned()).isEqualTo(1);
        tally.count(Tally.DENIED);
        assertThat(tally.admitted()).isEqualTo(1L);
        assertThat(tally.denied()).isEqualTo(1L);
    }

    @Test
    void slotsMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new Tally(3)).isInstanceOf(IllegalArgumentException.class).hasMessage("slots must be a power of two, got 3");
        assertThatThrownBy(() -> new Tally(0)).isInstanceOf(IllegalArgumentException.class).hasMessage("slots must be a power of two, got 0");
        assertThat(Integer.bitCount(Tally.defaultSlots())).isEqualTo(1);
        assertThat(Tally.defaultSlots()).isBetween(32, 1024);
    }

    /**
     * The limiter's counters with more threads than slots and threads that come and go:
     * with a frozen clock exactly {@code burst} calls are admitted whoever makes them,
     * and every other call is a refusal, however the counts were kept.
     */
    @Test
    void limiterStatsStayExactAcrossThreadChurn() throws InterruptedException {
        RateLimiter limiter = RateLimiter.builder().limit(Limit.of(1, 1000)).clock(new TestClock(0L))
                .sweepInterval(Duration.ZERO).build();
        int perThread = 5_000;
        int threads = 0;
        for (int round = 0; round < 6; round++) {
            List<Thread> crowd = new ArrayList<>();
            for (int t = 0; t < 40; t++) { // 40 live at once: more than the 32 slots a small machine gets
                Thread th = new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        limiter.tryAcquire("hot");
                    }
                });
                crowd.add(th);
                th.start();
                threads++;
            }
            for (Thread th : crowd) {
                th.join();
            }
            RateLimiter.Stats stats = limiter.stats(); // also reclaims the ended threads' slots
            assertThat(stats.admitted()).isEqualTo(1000L);
            assertThat(stats.denied()).isEqualTo((long) threads * perThread - 1000L);
            assertThat(limiter.sweepTick()).isZero(); // the sweep reclaims too; nothing to delete on a frozen clock
        }
    }
}

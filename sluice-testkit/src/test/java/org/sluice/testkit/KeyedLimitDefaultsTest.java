package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;

/**
 * {@link KeyedLimit}'s default waiting calls, on a limit whose answers a test scripts: what
 * they do with every answer, on a manual clock and a manual scheduler (the model tests run
 * the same defaults against the real shared-memory and Redis limiters).
 */
class KeyedLimitDefaultsTest {

    private static final long MS = 1_000_000L;

    private final ManualClock clock = new ManualClock(0L);
    private final ManualScheduler scheduler = new ManualScheduler(clock);

    /** Answers the scripted waits in order (a RuntimeException entry is thrown), counting the asks. */
    private final class Scripted implements KeyedLimit<String> {
        final Deque<Object> answers = new ArrayDeque<>();
        int asks;

        Scripted(Object... answers) {
            this.answers.addAll(List.of(answers));
        }

        @Override
        public long tryAcquire(String key, long permits) {
            asks++;
            Object next = answers.removeFirst();
            if (next instanceof RuntimeException e) {
                throw e;
            }
            return (Long) next;
        }

        @Override
        public boolean tryAcquire(String key, long permits, Probe probe) {
            long wait = tryAcquire(key, permits);
            probe.set(wait == 0L, 0L, wait, 0L);
            return wait == 0L;
        }

        @Override
        public void reset(String key) {
        }

        @Override
        public List<Limit> bandwidths() {
            return List.of(Limit.of(10, 10));
        }

        @Override
        public Clock clock() {
            return clock;
        }

        @Override
        public Sleeper sleeper() {
            return clock::advanceNanos;
        }
    }

    @Test
    void theBlockingAcquireSleepsEachWaitAndGivesUpWhenTheNextDoesNotFit() throws Exception {
        Scripted limit = new Scripted(30 * MS, 50 * MS, 0L);
        assertThat(limit.acquire("a", 1, Duration.ofMillis(80))).isTrue();
        assertThat(clock.nanoTime()).isEqualTo(80 * MS);
        Scripted late = new Scripted(30 * MS, 51 * MS);
        assertThat(late.acquire("a", 1, Duration.ofMillis(80))).as("30 + 51 ms is past the timeout").isFalse();
        assertThat(late.asks).isEqualTo(2);
    }

    @Test
    void theAsyncAcquireAsksAgainOnTheSchedulerUntilAdmittedOrOutOfTime() {
        Scripted limit = new Scripted(30 * MS, 20 * MS, 0L);
        CompletableFuture<Boolean> stage = limit.acquireAsync("a", 1, Duration.ofMillis(50), scheduler).toCompletableFuture();
        assertThat(limit.asks).as("the first ask is on the caller's thread").isEqualTo(1);
        assertThat(scheduler.runUntilIdle()).isEqualTo(2);
        assertThat(stage).isCompletedWithValue(true);
        assertThat(clock.nanoTime()).isEqualTo(50 * MS);

        Scripted late = new Scripted(30 * MS, 21 * MS);
        CompletableFuture<Boolean> refused = late.acquireAsync("a", 1, Duration.ofMillis(50), scheduler).toCompletableFuture();
        scheduler.runUntilIdle();
        assertThat(refused).isCompletedWithValue(false);
    }

    @Test
    void aLaterAskThatThrowsCompletesTheStageExceptionally() {
        IllegalStateException broken = new IllegalStateException("broken");
        Scripted limit = new Scripted(10 * MS, broken);
        CompletableFuture<Boolean> stage = limit.acquireAsync("a", 1, Duration.ofSeconds(1), scheduler).toCompletableFuture();
        scheduler.runUntilIdle();
        assertThat(stage).isCompletedExceptionally();
        assertThat(stage.handle((ok, e) -> e)).isCompletedWithValue(broken);
    }

    @Test
    void aSchedulerThatRefusesCompletesTheStageExceptionallyAndNothingIsTaken() {
        scheduler.shutdown();
        Scripted limit = new Scripted(10 * MS);
        CompletableFuture<Boolean> stage = limit.acquireAsync("a", 1, Duration.ofSeconds(1), scheduler).toCompletableFuture();
        assertThat(stage).isCompletedExceptionally();
        assertThat(limit.asks).isEqualTo(1);
    }

    @Test
    void aCancelledStageAsksNoMore() {
        Scripted limit = new Scripted(10 * MS, 0L);
        CompletableFuture<Boolean> stage = limit.acquireAsync("a", 1, Duration.ofSeconds(1), scheduler).toCompletableFuture();
        stage.cancel(false);
        scheduler.runUntilIdle();
        assertThat(limit.asks).isEqualTo(1);
    }
}

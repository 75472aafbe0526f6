package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous acquire of both limiters and the single limiter's live limit change,
 * on a manual clock. The permits are taken at the call, so every count is checked right
 * after it; the stage is awaited (it completes on a real scheduler after the wait) but
 * no assertion is about when.
 */
class AcquireAsyncTest {

    private static final long MS = 1_000_000L;

    private final TestClock clock = new TestClock(11L);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static boolean await(CompletionStage<Boolean> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void anAdmittedCallCompletesAtOnce() throws Exception {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(1000, 2)).clock(clock).build();
        CompletionStage<Boolean> stage = limiter.acquireAsync(2, Duration.ZERO, scheduler);
        assertThat(stage.toCompletableFuture().isDone()).isTrue();
        assertThat(await(stage)).isTrue();
        assertThat(limiter.remaining()).isZero();
    }

    @Test
    void aWaitWithinTheTimeoutReservesNowAndCompletesOnTheScheduler() throws Exception {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(1000, 2)).clock(clock).build();
        assertThat(limiter.tryAcquire(2)).isZero();
        CompletionStage<Boolean> stage = limiter.acquireAsync(1, Duration.ofMillis(1), scheduler);
        assertThat(limiter.tryAcquire()).as("the reservation is queued ahead of later calls").isEqualTo(2 * MS);
        assertThat(await(stage)).isTrue();
    }

    @Test
    void aWaitLongerThanTheTimeoutFailsAtOnceAndChargesNothing() throws Exception {
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder().bandwidth(Limit.of(1000, 2)).clock(clock)
                .sweepInterval(Duration.ZERO).build();
        assertThat(limiter.tryAcquire("a", 2)).isZero();
        CompletionStage<Boolean> stage = limiter.acquireAsync("a", 1, Duration.ofMillis(1).minusNanos(1), scheduler);
        assertThat(stage.toCompletableFuture().isDone()).isTrue();
        assertThat(await(stage)).isFalse();
        clock.advanceMillis(1);
        assertThat(limiter.remaining("a")).as("nothing was charged").isEqualTo(1L);
    }

    @Test
    void theKeyedAsyncAcquireReservesOnItsKeyOnly() throws Exception {
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder().bandwidth(Limit.of(1000, 2)).clock(clock)
                .sweepInterval(Duration.ZERO).build();
        assertThat(limiter.tryAcquire("a", 2)).isZero();
        CompletableFuture<Boolean> waiting = limiter.acquireAsync("a", 2, Duration.ofSeconds(1), scheduler).toCompletableFuture();
        assertThat(limiter.tryAcquire("a")).isEqualTo(3 * MS);
        assertThat(limiter.tryAcquire("b", 2)).isZero();
        assertThat(await(waiting)).isTrue();
    }

    @Test
    void replacingALimitersBandwidthsKeepsItsStateAsAsked() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 10)).clock(clock).build();
        assertThat(limiter.tryAcquire(4)).isZero(); // 6 left of 10
        limiter.replaceBandwidths(List.of(Limit.of(10, 20), Limit.of(1, 3)), LimitChange.PROPORTIONAL);
        assertThat(limiter.bandwidths()).containsExactly(Limit.of(10, 20), Limit.of(1, 3));
        assertThat(limiter.remaining()).as("12 of 20 on the first, the new second full with 3").isEqualTo(3L);
        assertThat(limiter.tryAcquire(3)).isZero();
        limiter.replaceBandwidths(List.of(Limit.of(10, 20)), LimitChange.KEEP_REMAINING);
        assertThat(limiter.remaining()).isEqualTo(9L);
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire(9, probe)).isTrue();
        assertThat(probe.resetNanos()).as("20 permits at 10 a second").isEqualTo(2000 * MS);
    }

    @Test
    void aReservationBeyondTheBurstStaysOwedAcrossAChange() {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 2)).clock(clock).build();
        assertThat(limiter.reserve(2)).isZero();
        assertThat(limiter.reserve(2)).isEqualTo(200 * MS); // 400 ms owed, 200 past the burst
        limiter.replaceBandwidths(List.of(Limit.of(10, 4)), LimitChange.KEEP_REMAINING);
        assertThat(limiter.tryAcquire()).as("the 200 ms past the old burst still queue a new call").isEqualTo(300 * MS); // as under the old limit
    }
}

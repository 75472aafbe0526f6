package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.testkit.RedisServer;

/**
 * Group commit through {@link FleetLimiter#tryAcquire}: concurrent charges share script
 * calls, with the answers of one call each. Redis is paused (SIGSTOP) while the callers
 * arrive, so the batches formed are known exactly: two charges take the two slots, the
 * rest queue and go out together when it resumes. Counts only, no timing; the script's
 * time is a manual clock that does not move.
 */
class FleetLimiterBatchTest {

    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final Clock clock = now::get;

    private FleetLimiter limiter(RedisServer redis, String name, Limit limit) {
        return FleetLimiter.start(Fixtures.relaxed(redis.uri()), name, List.of(limit), clock, clock);
    }

    /** Starts one caller per key (in order) while Redis is paused; waits until all are in the batcher. */
    private static List<Future<Long>> whilePaused(RedisServer redis, ExecutorService pool, FleetLimiter limiter,
                                                  List<String> keys) {
        AdmitBatcher batcher = limiter.batcher();
        List<Future<Long>> answers = new ArrayList<>();
        redis.pause();
        for (String key : keys) {
            long sentBefore = batcher.sent() + batcher.queued();
            answers.add(pool.submit(() -> limiter.tryAcquire(key, 1)));
            Fixtures.await("the charge of " + key + " reached the batcher", () -> batcher.sent() + batcher.queued() > sentBefore);
        }
        return answers;
    }

    @Test
    void tenConcurrentChargesShareThreeScriptCallsAndExactlyTheBurstIsAdmitted() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try (RedisServer redis = RedisServer.start(); FleetLimiter limiter = limiter(redis, "crowd", Limit.of(1, 4))) {
            List<Future<Long>> answers = whilePaused(redis, pool, limiter, java.util.Collections.nCopies(10, "k"));
            assertThat(limiter.batcher().inFlight()).isEqualTo(AdmitBatcher.IN_FLIGHT_MAX);
            assertThat(limiter.batcher().queued()).isEqualTo(8);
            redis.resume();
            int admitted = 0;
            for (Future<Long> f : answers) {
                long wait = f.get(30, TimeUnit.SECONDS);
                if (wait == 0L) {
                    admitted++;
                } else {
                    assertThat(wait).as("refused: a wait of whole seconds at 1/s").isPositive();
                }
            }
            assertThat(admitted).isEqualTo(4);
            assertThat(limiter.batcher().batches()).as("1 + 1 + the 8 that queued").isEqualTo(3);
            assertThat(limiter.batcher().sent()).isEqualTo(10);
            assertThat(limiter.fallbacks()).isZero();
            assertThat(limiter.tryAcquire("k", 1)).as("the burst is spent in Redis").isEqualTo(1_000_000_000L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aKeyOfAnotherTypeFailsOnlyItsOwnChargeInABatch() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (RedisServer redis = RedisServer.start(); FleetLimiter limiter = limiter(redis, "mixed", Limit.of(1, 4))) {
            redis.call("HSET", "sluice:{l:mixed:bad}:0", "f", "v");
            List<Future<Long>> answers = whilePaused(redis, pool, limiter, List.of("a", "b", "bad", "c"));
            assertThat(limiter.batcher().queued()).as("bad and c wait for one call together").isEqualTo(2);
            redis.resume();
            for (Future<Long> f : answers) {
                assertThat(f.get(30, TimeUnit.SECONDS)).isZero();
            }
            assertThat(limiter.batcher().batches()).isEqualTo(3);
            assertThat(limiter.fallbacks()).as("bad alone was answered node-local").isEqualTo(1);
            assertThat(redis.call("GET", "sluice:{l:mixed:c}:0")).as("c, in bad's batch, was charged in Redis").isNotNull();
            assertThat(redis.call("TYPE", "sluice:{l:mixed:bad}:0")).as("bad's key untouched").isEqualTo("hash");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void onlyWhatLimitLuaAnswersIsTakenAsAnAnswer() {
        assertThat(FleetLimiter.wellFormed(List.of(0L, 5L), 1)).isTrue();
        assertThat(FleetLimiter.wellFormed(List.of(7L, 5L, 0L), 2)).isTrue();
        assertThat(FleetLimiter.wellFormed(List.of(-1L, 3L), 2)).as("stale").isTrue();
        assertThat(FleetLimiter.wellFormed(List.of(), 1)).isFalse();
        assertThat(FleetLimiter.wellFormed(null, 1)).isFalse();
        assertThat(FleetLimiter.wellFormed(List.of(0L), 1)).as("a debt missing").isFalse();
        assertThat(FleetLimiter.wellFormed(List.of(0L, 1L, 2L), 1)).as("a debt too many").isFalse();
        assertThat(FleetLimiter.wellFormed(List.of(-2L, 1L), 1)).isFalse();
        assertThat(FleetLimiter.wellFormed(List.of("0", 1L), 1)).isFalse();
    }
}

package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.fleet.Fixtures.answer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;
import org.sluice.testkit.Together;

/**
 * Group commit through {@link FleetClient#admit}: many concurrent calls share script
 * calls, and the answers are exactly those of one call each. Counts only, no timing.
 */
class AdmitBatchTest {

    /** One hook per 100 s, burst 100: nothing refills while the test runs. */
    private static final long INC = FleetGcra.micros(1, 0.01);
    private static final long TOL = FleetGcra.micros(100, 0.01);

    /** Starts {@code threads} callers at once, each making {@code each} calls; returns every answer. */
    private static List<FleetAnswer> concurrently(int threads, int each, IntFunction<CompletionStage<FleetAnswer>> call)
            throws InterruptedException {
        List<FleetAnswer> answers = java.util.Collections.synchronizedList(new ArrayList<>());
        Together.run(threads, t -> {
            // a caller fires all its calls before waiting: the batcher sees a crowd
            List<CompletionStage<FleetAnswer>> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                mine.add(call.apply(t * each + i));
            }
            for (CompletionStage<FleetAnswer> s : mine) {
                answers.add(answer(s));
            }
        });
        return answers;
    }

    @Test
    void exactlyTheBurstIsAdmittedAcrossConcurrentBatches() throws Exception {
        try (RedisServer redis = RedisServer.start();
             FleetClient fleet = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a")) {
            List<FleetAnswer> answers = concurrently(32, 20,
                    i -> fleet.admit("crowd", "src", null, INC, TOL, 0, 0, true, false));
            assertThat(answers).hasSize(640);
            assertThat(answers).allMatch(a -> a instanceof FleetAnswer.Admitted || a instanceof FleetAnswer.RateLimited);
            assertThat(answers.stream().filter(a -> a instanceof FleetAnswer.Admitted).count()).isEqualTo(100);
            assertThat(fleet.batcher().sent()).isEqualTo(640);
            assertThat(fleet.batcher().rejected()).isZero();
            assertThat(fleet.fallbackTotal(FleetKind.RATE_LIMIT)).isZero();
        }
    }

    @Test
    void theSameKeySentConcurrentlyIsAdmittedExactlyOnce() throws Exception {
        try (RedisServer redis = RedisServer.start();
             FleetClient fleet = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a")) {
            // 8 keys, each asked 80 times by 16 callers at once
            List<FleetAnswer> answers = concurrently(16, 40,
                    i -> fleet.admit("dd", "src", "evt-" + (i % 8), INC, TOL, 0, 0, false, true));
            assertThat(answers).hasSize(640);
            List<FleetAnswer> admitted = answers.stream().filter(a -> a instanceof FleetAnswer.Admitted).toList();
            assertThat(admitted).hasSize(8);
            assertThat(answers.stream().filter(a -> a instanceof FleetAnswer.Pending).count()).isEqualTo(632);
            assertThat(admitted).allMatch(a -> a.claimToken() != null && !a.claimToken().isBlank());
            // each key holds the token of the one call that was admitted for it
            List<Object> held = new ArrayList<>();
            for (int k = 0; k < 8; k++) {
                held.add(redis.call("GET", "sluice:{dd}:d:src:evt-" + k));
            }
            assertThat(held).containsExactlyInAnyOrderElementsOf(
                    admitted.stream().map(a -> (Object) ("p:" + a.claimToken())).toList());

            // committed by another call, then a crowd: every one of them is a duplicate
            fleet.settleCommitted("dd", "src", "evt-0", admitted.stream()
                    .filter(a -> ("p:" + a.claimToken()).equals(held.get(0))).findFirst().orElseThrow().claimToken(),
                    "hook-0", 3_600);
            fleet.drainSettlesNow();
            List<FleetAnswer> again = concurrently(8, 10,
                    i -> fleet.admit("dd", "src", "evt-0", INC, TOL, 0, 0, true, true));
            assertThat(again).containsOnly(new FleetAnswer.Duplicate("hook-0"));
            assertThat(redis.call("EXISTS", "sluice:{dd}:h")).as("duplicates charge nothing").isEqualTo(0L);
        }
    }

    @Test
    void batchesThatTimeOutOnAPausedStoreReleaseTheirSlotsAndAdmissionsFlowAfterResume() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = FleetSettings.defaults().withRedis(redis.uri())
                    // long enough that a busy machine does not time out the calls after the
                    // resume; the paused phase then lasts about one budget
                    .withTimeoutMs(1_000)
                    .withBreaker(1.0, 1_000_000, 10_000, 5_000); // keep it closed: this test is about the batcher
            try (FleetClient fleet = FleetClient.start(settings, "node-a")) {
                Fixtures.await("a first answer from the store",
                        () -> Fixtures.claim(fleet, "t", "warm-" + System.nanoTime()) instanceof FleetAnswer.Admitted);
                redis.pause();
                // claims only, so the stalled calls that still run on resume spend no burst
                List<FleetAnswer> stalled = concurrently(16, 8,
                        i -> fleet.admit("t", "src", "stalled-" + i, INC, TOL, 0, 0, false, true));
                assertThat(stalled).hasSize(128).allMatch(a -> a instanceof FleetAnswer.Fallback);
                assertThat(stalled).extracting(a -> ((FleetAnswer.Fallback) a).reason())
                        .containsOnly(FleetAnswer.Reason.TIMEOUT);
                // every batch sent into the pause gives its slot back (command timeout or guard)
                Fixtures.await("the in-flight batches to be released", () -> fleet.batcher().inFlight() == 0);
                redis.resume();
                Fixtures.await("answers from the store again",
                        () -> Fixtures.claim(fleet, "t", "back-" + System.nanoTime()) instanceof FleetAnswer.Admitted);
                List<FleetAnswer> after = concurrently(16, 8,
                        i -> fleet.admit("t", "src", "after-" + i, INC, TOL, 0, 0, false, true));
                assertThat(after).hasSize(128).allMatch(a -> a instanceof FleetAnswer.Admitted);
                assertThat(fleet.batcher().inFlight()).isLessThanOrEqualTo(2);
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isFalse();
            }
        }
    }

    @Test
    void aLoneCallIsSentAtOnceInABatchOfOne() {
        try (RedisServer redis = RedisServer.start();
             FleetClient fleet = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a")) {
            for (int i = 0; i < 5; i++) {
                assertThat(answer(fleet.admit("lone", "src", "e" + i, INC, TOL, 0, 0, true, true)))
                        .isInstanceOf(FleetAnswer.Admitted.class);
            }
            // one caller waiting for each answer: every call is its own batch
            assertThat(fleet.batcher().batches()).isEqualTo(5);
            assertThat(fleet.batcher().sent()).isEqualTo(5);
        }
    }

    /**
     * Issue 11 item 7: one request whose key another writer turned into a list used to
     * abort the whole script after the earlier requests had written, so every request of
     * the batch fell back node-local (charged twice, claims left pending). Now the bad
     * request fails alone and changes nothing; the others are decided as usual.
     */
    @Test
    void aKeyOfTheWrongTypeFailsOnlyItsOwnRequestAndTheRestOfTheBatchIsChargedOnce() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = FleetSettings.defaults().withRedis(redis.uri())
                    .withTimeoutMs(60_000) // the store is paused while the batch queues: no budget may run out
                    .withBreaker(0.5, 1, 10_000, 5_000); // a breaker that opens at the first failed call
            try (FleetClient fleet = FleetClient.start(settings, "node-a")) {
                Fixtures.await("a first answer from the store",
                        () -> Fixtures.claim(fleet, "warm", "w-" + System.nanoTime()) instanceof FleetAnswer.Admitted);
                // another writer: tenant "broken"'s hook bucket and one claim key of "ok" are lists
                redis.call("LPUSH", "sluice:{broken}:h", "x");
                redis.call("LPUSH", "sluice:{ok}:d:src:evt-list", "x");
                long batchesBefore = fleet.batcher().batches();
                long sentBefore = fleet.batcher().sent();

                redis.pause();
                // two calls take both slots and wait in the paused store; the five after them
                // queue and go out together as the third call
                List<CompletionStage<FleetAnswer>> occupiers = List.of(
                        fleet.admit("warm", "src", "o-1", Fixtures.INC, Fixtures.TOL, 0, 0, false, true),
                        fleet.admit("warm", "src", "o-2", Fixtures.INC, Fixtures.TOL, 0, 0, false, true));
                assertThat(fleet.batcher().inFlight()).isEqualTo(2);
                CompletionStage<FleetAnswer> good1 = fleet.admit("ok", "src", "evt-1", Fixtures.INC, Fixtures.TOL, 0, 0, true, true);
                CompletionStage<FleetAnswer> badBucket = fleet.admit("broken", "src", null, Fixtures.INC, Fixtures.TOL, 0, 0, true, false);
                CompletionStage<FleetAnswer> good2 = fleet.admit("ok", "src", "evt-2", Fixtures.INC, Fixtures.TOL, 0, 0, true, true);
                // charges "ok" and claims the list: neither may happen
                CompletionStage<FleetAnswer> badClaim = fleet.admit("ok", "src", "evt-list", Fixtures.INC, Fixtures.TOL, 0, 0, true, true);
                CompletionStage<FleetAnswer> good3 = fleet.admit("ok", "src", "evt-3", Fixtures.INC, Fixtures.TOL, 0, 0, true, true);
                assertThat(fleet.batcher().queued()).isEqualTo(5);
                redis.resume();

                for (CompletionStage<FleetAnswer> o : occupiers) {
                    assertThat(answer(o)).isInstanceOf(FleetAnswer.Admitted.class);
                }
                List<FleetAnswer> good = List.of(answer(good1), answer(good2), answer(good3));
                assertThat(fleet.batcher().batches() - batchesBefore).as("one call for the five").isEqualTo(3);
                assertThat(fleet.batcher().sent() - sentBefore).isEqualTo(7);
                assertThat(good).allMatch(a -> a instanceof FleetAnswer.Admitted && a.claimToken() != null);
                assertThat(answer(badBucket)).isEqualTo(new FleetAnswer.Fallback(FleetAnswer.Reason.ERROR, null));
                assertThat(answer(badClaim)).isEqualTo(new FleetAnswer.Fallback(FleetAnswer.Reason.ERROR, null));

                // only the two bad requests are answered node-local; the store is healthy
                assertThat(fleet.fallbackTotal(FleetKind.RATE_LIMIT)).isEqualTo(2);
                assertThat(fleet.fallbackTotal(FleetKind.DEDUPE)).isEqualTo(1);
                assertThat(fleet.stats().fallbackError()).isEqualTo(2);
                assertThat(fleet.state()).isEqualTo(BreakerState.CLOSED);
                assertThat(fleet.degraded(FleetKind.RATE_LIMIT)).isFalse();
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isFalse();

                // the other writer's lists are untouched
                assertThat(redis.call("LLEN", "sluice:{broken}:h")).isEqualTo(1L);
                assertThat(redis.call("LLEN", "sluice:{ok}:d:src:evt-list")).isEqualTo(1L);
                // each good claim holds its own token
                for (int i = 0; i < 3; i++) {
                    assertThat(redis.call("GET", "sluice:{ok}:d:src:evt-" + (i + 1))).isEqualTo("p:" + good.get(i).claimToken());
                }
                // "ok" was charged exactly three hooks of its burst of 5 (not the bad claim's)
                assertThat(answer(fleet.admit("ok", "src", null, Fixtures.INC, Fixtures.TOL, 0, 0, true, false))).isInstanceOf(FleetAnswer.Admitted.class);
                assertThat(answer(fleet.admit("ok", "src", null, Fixtures.INC, Fixtures.TOL, 0, 0, true, false))).isInstanceOf(FleetAnswer.Admitted.class);
                assertThat(answer(fleet.admit("ok", "src", null, Fixtures.INC, Fixtures.TOL, 0, 0, true, false))).isInstanceOf(FleetAnswer.RateLimited.class);

                // their claims settle as usual
                for (int i = 0; i < 3; i++) {
                    assertThat(fleet.settleCommitted("ok", "src", "evt-" + (i + 1), good.get(i).claimToken(), "hook-" + (i + 1), 3_600))
                            .isTrue();
                }
                fleet.drainSettlesNow();
                for (int i = 0; i < 3; i++) {
                    assertThat(redis.call("GET", "sluice:{ok}:d:src:evt-" + (i + 1))).isEqualTo("c:hook-" + (i + 1));
                }
                assertThat(fleet.stats().settlePromoted()).isEqualTo(3);
                assertThat(fleet.stats().settleFailed()).isZero();
            }
        }
    }
}

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
}

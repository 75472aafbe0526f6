package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.fleet.Fixtures.claim;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;

/** The settle queue's bound and the fallback share from heartbeats. */
class SettleAndShareTest {

    @Test
    void settleQueueOverflowIsDroppedAndCountedAndLosesNoHook() {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = Fixtures.relaxed(redis.uri())
                    .withSettle(3_600_000, 10) // the background drainer never runs in this test
                    .withPendingTtlMs(1_000);
            try (FleetClient a = FleetClient.start(settings, "node-a");
                 FleetClient b = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-b")) {
                List<String> tokens = new ArrayList<>();
                for (int i = 0; i < 15; i++) {
                    FleetAnswer ans = claim(a, "t", "evt-" + i);
                    assertThat(ans).isInstanceOf(FleetAnswer.Admitted.class);
                    tokens.add(ans.claimToken());
                }
                int queued = 0;
                for (int i = 0; i < 15; i++) {
                    if (a.settleCommitted("t", "src", "evt-" + i, tokens.get(i), "hook-" + i, 3_600)) {
                        queued++;
                    }
                }
                assertThat(queued).isEqualTo(10);
                assertThat(a.stats().settleDropped()).isEqualTo(5);
                assertThat(a.settleQueueDepth()).isEqualTo(10);

                a.drainSettlesNow();
                assertThat(a.stats().settlePromoted()).isEqualTo(10);
                assertThat(a.settleQueueDepth()).isZero();
                for (int i = 0; i < 10; i++) {
                    assertThat(claim(b, "t", "evt-" + i)).isEqualTo(new FleetAnswer.Duplicate("hook-" + i));
                }
                // a dropped promote: the key stays pending until pending_ttl_ms, then the next copy
                // is admitted (a possible duplicate later, never a lost hook)
                for (int i = 10; i < 15; i++) {
                    Object held = redis.call("GET", "sluice:{t}:d:src:evt-" + i);
                    assertThat(held).as("a dropped promote never commits").isNotEqualTo("c:hook-" + i);
                    String key = "evt-" + i;
                    Fixtures.await("the dropped claim to expire", () -> claim(b, "t", key) instanceof FleetAnswer.Admitted);
                }
            }
        }
    }

    @Test
    void settlesThatFailOnTheConnectionAreKeptForTheNextDrain() {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = Fixtures.relaxed(redis.uri()).withSettle(3_600_000, 100);
            try (FleetClient a = FleetClient.start(settings, "node-a")) {
                FleetAnswer claimed = claim(a, "t", "evt");
                redis.kill9(); // no admissions follow, so the breaker stays closed and the drainer tries
                a.settleCommitted("t", "src", "evt", claimed.claimToken(), "hook-1", 3_600);
                a.drainSettlesNow();
                assertThat(a.stats().settleFailed()).isZero();
                assertThat(a.settleQueueDepth()).as("kept for the next drain").isEqualTo(1);

                redis.restartEmpty();
                Fixtures.await("the settle connection to come back", () -> {
                    a.drainSettlesNow();
                    return a.stats().settlePromoted() == 1;
                });
                assertThat(redis.call("GET", "sluice:{t}:d:src:evt")).isEqualTo("c:hook-1");
                assertThat(a.stats().settleFailed()).isZero();
            }
        }
    }

    @Test
    void fallbackShareIsOneOverTheLiveNodesAndSurvivesAnOutage() {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = Fixtures.relaxed(redis.uri());
            FleetClient a = FleetClient.start(settings, "node-a");
            FleetClient b = FleetClient.start(settings, "node-b");
            FleetClient c = FleetClient.start(settings.withFallback(FleetSettings.Fallback.WHOLE), "node-c");
            try {
                for (FleetClient n : List.of(a, b, c)) {
                    n.heartbeat().toCompletableFuture().join();
                }
                for (FleetClient n : List.of(a, b, c)) {
                    assertThat(n.heartbeat().toCompletableFuture().join()).isEqualTo(3);
                    assertThat(n.liveNodes()).isEqualTo(3);
                }
                assertThat(a.fallbackShare()).isEqualTo(1.0 / 3);
                assertThat(b.stats().liveNodes()).isEqualTo(3);
                assertThat(c.fallbackShare()).as("fallback: whole keeps the full limit").isEqualTo(1.0);

                c.close(); // leaves the live set
                assertThat(a.heartbeat().toCompletableFuture().join()).isEqualTo(2);
                assertThat(a.fallbackShare()).isEqualTo(0.5);

                redis.kill9(); // the last known count is kept while the store is gone
                assertThat(a.heartbeat().toCompletableFuture().join()).isEqualTo(2);
                assertThat(a.fallbackShare()).isEqualTo(0.5);
            } finally {
                a.close();
                b.close();
                c.close();
            }
        }
    }
}

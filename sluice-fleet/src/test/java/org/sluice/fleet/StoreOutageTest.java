package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.fleet.Fixtures.INC;
import static org.sluice.fleet.Fixtures.TOL;
import static org.sluice.fleet.Fixtures.answer;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.RedisServer;
import org.sluice.testkit.TcpProxy;
import org.sluice.testkit.Together;

/**
 * The store dies, stalls, and comes back empty. Assertions are on answers, counts and
 * states, never on durations; the breaker's time is a manual clock.
 */
class StoreOutageTest {

    /**
     * Commands a reconnecting client sends on its own (handshake), and the test's own
     * {@code CONFIG RESETSTAT} ({@code config} before Redis 7, which counts subcommands
     * apart); none is a store call of ours.
     */
    private static final Set<String> HANDSHAKE = Set.of("hello", "client|setinfo", "client|setname", "ping",
            "auth", "select", "info", "config|resetstat", "config", "command", "command|docs");

    private static FleetAnswer both(FleetClient c, String key) {
        return answer(c.admit("t", "src", key, INC, TOL, 0, 0, true, true));
    }

    @Test
    void killedMidLoadFallsBackOpensStaysOffTheStoreThenOneProbeCloses() {
        ManualClock clock = new ManualClock();
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = FleetSettings.defaults().withRedis(redis.uri())
                    .withTimeoutMs(2_000)
                    .withBreaker(0.5, 6, 10_000, 5_000);
            try (FleetClient fleet = FleetClient.start(settings, "node-a", clock)) {
                // three good calls
                for (int i = 0; i < 3; i++) {
                    assertThat(both(fleet, "ok-" + i)).isInstanceOf(FleetAnswer.Admitted.class);
                }
                redis.kill9();

                // failures: 3 good + 2 bad = 5 calls < 6: still closed, but degraded
                for (int i = 0; i < 2; i++) {
                    FleetAnswer a = both(fleet, "down-" + i);
                    assertThat(a).isInstanceOf(FleetAnswer.Fallback.class);
                    assertThat(((FleetAnswer.Fallback) a).reason()).isNotEqualTo(FleetAnswer.Reason.BREAKER_OPEN);
                    assertThat(a.claimToken()).as("a claim that may have landed is handed back").isNotNull();
                }
                assertThat(fleet.state()).isEqualTo(BreakerState.CLOSED);
                assertThat(fleet.degraded(FleetKind.RATE_LIMIT)).isTrue();
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isTrue();
                // the sixth call: 3 failed of 6 >= 0.5 -> open
                assertThat(both(fleet, "down-2")).isInstanceOf(FleetAnswer.Fallback.class);
                assertThat(fleet.state()).isEqualTo(BreakerState.OPEN);
                assertThat(fleet.fallbackTotal(FleetKind.RATE_LIMIT)).isEqualTo(3);
                assertThat(fleet.fallbackTotal(FleetKind.DEDUPE)).isEqualTo(3);

                // the store comes back, but the breaker is open: no command of ours reaches it
                redis.restartEmpty();
                Fixtures.await("the client to reconnect", fleet::storeConnected);
                redis.resetStats();
                long storeCalls = fleet.stats().storeCalls();
                for (int i = 0; i < 100; i++) {
                    assertThat(both(fleet, "open-" + i))
                            .isEqualTo(new FleetAnswer.Fallback(FleetAnswer.Reason.BREAKER_OPEN, null));
                }
                fleet.heartbeat().toCompletableFuture().join();
                fleet.drainSettlesNow();
                clock.advance(Duration.ofMillis(4_999));
                assertThat(both(fleet, "still-open")).isInstanceOf(FleetAnswer.Fallback.class);
                Map<String, Long> served = redis.commandStats();
                assertThat(served.keySet()).as("commands that reached Redis while open: %s", served)
                        .allMatch(HANDSHAKE::contains);
                assertThat(fleet.stats().storeCalls()).isEqualTo(storeCalls);
                assertThat(fleet.stats().fallbackBreakerOpen()).isEqualTo(101);
                assertThat(fleet.fallbackTotal(FleetKind.RATE_LIMIT)).isEqualTo(104);

                // breaker_open_ms later: one probe, which succeeds (NOSCRIPT -> EVAL) and closes it
                clock.advance(Duration.ofMillis(1));
                assertThat(both(fleet, "probe")).isInstanceOf(FleetAnswer.Admitted.class);
                assertThat(fleet.state()).isEqualTo(BreakerState.CLOSED);
                assertThat(fleet.degraded(FleetKind.RATE_LIMIT)).isFalse();
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isFalse();
                assertThat(fleet.stats().storeCalls()).isEqualTo(storeCalls + 1);
                assertThat(redis.commandStats()).containsKey("eval");
                // closed again: limits go on in the empty store
                assertThat(both(fleet, "after")).isInstanceOf(FleetAnswer.Admitted.class);
                assertThat(redis.commandStats()).containsKey("evalsha");
            }
        }
    }

    @Test
    void exactlyOneProbeWhileManyCallersRace() throws Exception {
        ManualClock clock = new ManualClock();
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = FleetSettings.defaults().withRedis(redis.uri())
                    .withTimeoutMs(200)
                    .withBreaker(0.5, 2, 10_000, 5_000);
            try (FleetClient fleet = FleetClient.start(settings, "node-a", clock)) {
                redis.pause(); // every call now hits the budget
                both(fleet, "a");
                both(fleet, "b");
                assertThat(fleet.state()).isEqualTo(BreakerState.OPEN);
                assertThat(fleet.stats().fallbackTimeout()).isEqualTo(2);
                clock.advance(Duration.ofMillis(5_000));

                long calls = fleet.stats().storeCalls();
                int racers = 16;
                FleetAnswer[] answers = new FleetAnswer[racers];
                Together.run(racers, t -> answers[t] = both(fleet, "race-" + t));
                assertThat(fleet.stats().storeCalls()).as("exactly one probe").isEqualTo(calls + 1);
                long timeouts = Arrays.stream(answers)
                        .filter(a -> a instanceof FleetAnswer.Fallback fb && fb.reason() == FleetAnswer.Reason.TIMEOUT)
                        .count();
                assertThat(timeouts).isEqualTo(1);
                assertThat(fleet.state()).as("the probe timed out: open again").isEqualTo(BreakerState.OPEN);

                redis.resume();
                clock.advance(Duration.ofMillis(5_000));
                Fixtures.await("a probe to close the breaker", () -> {
                    both(fleet, "after-" + System.nanoTime());
                    if (fleet.state() == BreakerState.OPEN) {
                        clock.advance(Duration.ofMillis(5_000)); // a probe lost to a stale reply: try the next
                    }
                    return fleet.state() == BreakerState.CLOSED;
                });
                assertThat(both(fleet, "closed")).isInstanceOf(FleetAnswer.Admitted.class);
            }
        }
    }

    @Test
    void pausedStoreCallsGiveUpAtTheBudgetAndComeBackOnResume() {
        try (RedisServer redis = RedisServer.start()) {
            FleetSettings settings = FleetSettings.defaults().withRedis(redis.uri())
                    .withTimeoutMs(50)
                    .withBreaker(1.0, 1_000_000, 10_000, 5_000); // keep it closed: this test is about the budget
            try (FleetClient fleet = FleetClient.start(settings, "node-a")) {
                // warm up (first call on a busy machine may be slow; retry until the store answers)
                Fixtures.await("a first answer from the store", () -> Fixtures.claim(fleet, "t", "warm-" + System.nanoTime())
                        instanceof FleetAnswer.Admitted);
                // claims only: the stalled calls still run when the store resumes, and would
                // otherwise spend the tenant's burst
                redis.pause();
                for (int i = 0; i < 10; i++) {
                    FleetAnswer a = Fixtures.claim(fleet, "t", "stalled-" + i);
                    assertThat(a).isInstanceOf(FleetAnswer.Fallback.class);
                    assertThat(((FleetAnswer.Fallback) a).reason()).isEqualTo(FleetAnswer.Reason.TIMEOUT);
                }
                assertThat(fleet.stats().fallbackTimeout()).isGreaterThanOrEqualTo(10);
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isTrue();
                redis.resume();
                Fixtures.await("answers from the store again", () -> Fixtures.claim(fleet, "t", "back-" + System.nanoTime())
                        instanceof FleetAnswer.Admitted);
                assertThat(fleet.degraded(FleetKind.DEDUPE)).isFalse();
                assertThat(fleet.state()).isEqualTo(BreakerState.CLOSED);
            }
        }
    }

    @Test
    void blackHoleNetworkGivesUpAtTheBudgetAndSendsNothingWhileOpen() {
        ManualClock clock = new ManualClock();
        try (RedisServer redis = RedisServer.start(); TcpProxy proxy = TcpProxy.to(redis.port())) {
            FleetSettings settings = FleetSettings.defaults().withRedis(proxy.redisUri())
                    .withTimeoutMs(100)
                    .withBreaker(0.5, 3, 10_000, 5_000);
            try (FleetClient fleet = FleetClient.start(settings, "node-a", clock)) {
                proxy.swallow(true);
                for (int i = 0; i < 3; i++) {
                    FleetAnswer a = both(fleet, "hole-" + i);
                    assertThat(a).isInstanceOf(FleetAnswer.Fallback.class);
                    assertThat(((FleetAnswer.Fallback) a).reason()).isEqualTo(FleetAnswer.Reason.TIMEOUT);
                }
                assertThat(fleet.state()).isEqualTo(BreakerState.OPEN);
                long up = proxy.bytesUp() + proxy.bytesSwallowed();
                for (int i = 0; i < 50; i++) {
                    both(fleet, "open-" + i);
                }
                fleet.heartbeat().toCompletableFuture().join();
                fleet.drainSettlesNow();
                assertThat(proxy.bytesUp() + proxy.bytesSwallowed()).as("bytes sent while open").isEqualTo(up);
            }
        }
    }

    @Test
    void restartedEmptyReloadsScriptsAndLimitsGoOn() {
        try (RedisServer redis = RedisServer.start()) {
            try (FleetClient fleet = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a")) {
                assertThat(Fixtures.hit(fleet, "t")).isInstanceOf(FleetAnswer.Admitted.class);
                FleetAnswer claimed = Fixtures.claim(fleet, "t", "before");
                redis.restartEmpty();
                Fixtures.await("the client to reconnect", fleet::storeConnected);
                Fixtures.await("an answer from the new store", () -> Fixtures.hit(fleet, "t") instanceof FleetAnswer.Admitted);
                int admitted = 1;
                while (Fixtures.hit(fleet, "t") instanceof FleetAnswer.Admitted) {
                    admitted++;
                }
                assertThat(admitted).as("a full burst in the empty store, then refusals").isEqualTo(5);
                assertThat(redis.commandStats()).containsKeys("eval", "evalsha");

                // the settle script is reloaded too: a promote of a claim the restart lost is recorded
                fleet.settleCommitted("t", "src", "before", claimed.claimToken(), "hook-1", 3_600);
                Fixtures.await("the promote to land", () -> fleet.stats().settlePromoted() == 1);
                assertThat(Fixtures.claim(fleet, "t", "before")).isEqualTo(new FleetAnswer.Duplicate("hook-1"));
                assertThat(fleet.stats().settleFailed()).isZero();
            }
        }
    }
}

package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.Probe;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.RecordingListener;
import org.sluice.testkit.RedisServer;

/**
 * A live limit change of the Redis limiter, against a real redis-server on a manual
 * clock sent as the script's time: each strategy's exact conversion, the change reaching
 * a node that still has the old limit (through the key's stored version) and a node
 * started afterwards (through the fleet's record), and the listener.
 */
class FleetLiveChangeTest {

    private static final long MS = 1_000_000L;
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static RedisServer redis;

    private final ManualClock clock = new ManualClock(5_000_000_000L);

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    private FleetLimiter.Builder node(String name) {
        return FleetLimiter.builder(Fixtures.relaxed(redis.uri()), name).clock(clock).scriptClock(clock)
                .sleeper(clock::advanceNanos);
    }

    /** 4 of a burst of 10 spent, then the limit becomes 20 per second in bursts of 20; the next call takes 1. */
    private long remainingAfterChange(LimitChange change) {
        String name = "change" + NAMES.incrementAndGet();
        try (FleetLimiter limiter = node(name).bandwidth(Limit.of(10, 10)).build()) {
            assertThat(limiter.tryAcquire("a", 4)).isZero();
            limiter.replaceBandwidths(List.of(Limit.of(20, 20)), change);
            assertThat(limiter.bandwidths()).containsExactly(Limit.of(20, 20));
            assertThat(limiter.limitVersion()).isEqualTo(1L);
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 1, probe)).isTrue();
            assertThat(limiter.tryAcquire("b", 20)).as("a key with no state starts full under the new limit").isZero();
            assertThat(limiter.fallbacks()).isZero();
            return probe.remaining();
        }
    }

    @Test
    void eachStrategyConvertsAKeyAsTheInMemoryLimiterDoes() {
        assertThat(remainingAfterChange(LimitChange.RESET)).as("full under the new limit, less the 1").isEqualTo(19L);
        assertThat(remainingAfterChange(LimitChange.KEEP_REMAINING)).as("the 6 left, less the 1").isEqualTo(5L);
        assertThat(remainingAfterChange(LimitChange.PROPORTIONAL)).as("60% of 20, less the 1").isEqualTo(11L);
    }

    @Test
    void aNodeWithTheOldLimitIsToldByTheKeyAndConverges() {
        try (FleetLimiter one = node("converge").bandwidth(Limit.of(10, 3)).build();
             FleetLimiter other = node("converge").bandwidth(Limit.of(10, 3)).build()) {
            assertThat(one.tryAcquire("a", 3)).isZero();
            one.replaceBandwidths(List.of(Limit.of(10, 5)), LimitChange.KEEP_REMAINING);
            assertThat(other.limitVersion()).as("the other node has not asked yet").isZero();
            assertThat(one.tryAcquire("a", 1)).as("kept: nothing left of the old 3").isEqualTo(100 * MS);
            clock.advanceNanos(200 * MS);
            assertThat(other.tryAcquire("a", 2)).as("charged under the new limit, after learning it").isZero();
            assertThat(other.limitVersion()).isEqualTo(1L);
            assertThat(other.bandwidths()).containsExactly(Limit.of(10, 5));
            assertThat(one.tryAcquire("a", 1)).isEqualTo(100 * MS);

            try (FleetLimiter late = node("converge").bandwidth(Limit.of(1, 1)).build()) {
                assertThat(late.bandwidths()).as("a node built after a change takes the fleet's limit").containsExactly(Limit.of(10, 5));
                assertThat(late.tryAcquire("fresh", 5)).isZero();
            }
            assertThat(one.fallbacks() + other.fallbacks()).isZero();
        }
    }

    @Test
    void aKeyTheOldNodeChargedAfterTheChangeIsConvertedWhenANewerNodeComes() {
        try (FleetLimiter one = node("stale").bandwidth(Limit.of(10, 4)).build();
             FleetLimiter other = node("stale").bandwidth(Limit.of(10, 4)).build()) {
            one.replaceBandwidths(List.of(Limit.of(10, 8)), LimitChange.PROPORTIONAL);
            assertThat(other.tryAcquire("b", 2)).as("the old limit, on a key no newer node touched").isZero();
            Probe probe = new Probe();
            assertThat(one.tryAcquire("b", 1, probe)).isTrue();
            assertThat(probe.remaining()).as("half the old burst left: half of 8, less the 1").isEqualTo(3L);
        }
    }

    @Test
    void theListenerHearsEveryDecisionAndEveryWait() throws Exception {
        RecordingListener listener = new RecordingListener();
        try (FleetLimiter limiter = node("told").bandwidth(Limit.of(10, 2)).listener(listener).build()) {
            KeyedLimit<String> limit = limiter;
            assertThat(limit.listener()).isSameAs(listener);
            assertThat(limit.tryAcquire("a", 2)).isZero();
            assertThat(limit.acquire("a", 1, Duration.ofSeconds(1))).isTrue();
            assertThat(listener.told()).containsExactly("admitted 2", "refused 1 100", "waited 100", "admitted 1");
        }
    }

    @Test
    void aChangeRedisCannotTakeFailsAndChangesNothing() {
        FleetSettings nowhere = FleetSettings.defaults().withRedis("redis://127.0.0.1:1").withTimeoutMs(50);
        try (FleetLimiter limiter = FleetLimiter.builder(nowhere, "away").bandwidth(Limit.of(10, 2)).clock(clock).build()) {
            assertThatThrownBy(() -> limiter.replaceBandwidths(List.of(Limit.of(1, 1)), LimitChange.RESET))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'away'");
            assertThat(limiter.bandwidths()).containsExactly(Limit.of(10, 2));
        }
    }
}

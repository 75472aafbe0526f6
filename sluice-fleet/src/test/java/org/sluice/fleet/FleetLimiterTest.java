package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.testkit.RedisServer;

/**
 * The fleet {@link KeyedLimit} against a real Redis, on a manual clock sent as the
 * script's time: exact counts over two bandwidths, the probe, the same answers as the
 * in-memory limiter, two nodes sharing a key, and node-local answers when Redis is away.
 */
class FleetLimiterTest {

    private static final long MS = 1_000_000L;
    private static RedisServer redis;

    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final Clock clock = now::get;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    private FleetLimiter limiter(String name, Limit... bandwidths) {
        return FleetLimiter.start(Fixtures.relaxed(redis.uri()), name, List.of(bandwidths), clock, clock);
    }

    @Test
    void aKeyIsHeldToEveryBandwidthAndTheProbeSaysWhereItStands() {
        // 10 per second in bursts of 5, and 2 per second in bursts of 8
        try (FleetLimiter limiter = limiter("two", Limit.of(10, 5), Limit.of(2, 8))) {
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 5, probe)).isTrue();
            assertThat(probe.remaining()).isZero();
            assertThat(probe.resetNanos()).as("the slower bandwidth owes 2.5 s").isEqualTo(2500 * MS);
            assertThat(limiter.tryAcquire("a", 1)).isEqualTo(100 * MS);
            assertThat(limiter.tryAcquire("b", 5)).as("another key is untouched").isZero();
            now.addAndGet(300 * MS);
            assertThat(limiter.tryAcquire("a", 3, probe)).isTrue();
            assertThat(limiter.tryAcquire("a", 1, probe)).isFalse();
            assertThat(probe.waitNanos()).as("the second bandwidth binds now").isEqualTo(200 * MS);
            assertThat((Long) redis.call("PTTL", "sluice:{l:two:a}:1")).as("expires when full again").isPositive();
            assertThat(limiter.fallbacks()).isZero();
            limiter.reset("a");
            assertThat(limiter.tryAcquire("a", 5)).isZero();
            assertThatThrownBy(() -> limiter.tryAcquire("a", 6)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("got 6");
            assertThatThrownBy(() -> limiter.tryAcquire("a:b", 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key must be");
        }
    }

    @Test
    void twoNodesShareAKeysBuckets() {
        try (FleetLimiter one = limiter("shared", Limit.of(10, 3)); FleetLimiter other = limiter("shared", Limit.of(10, 3))) {
            assertThat(one.tryAcquire("a", 2)).isZero();
            assertThat(other.tryAcquire("a", 1)).isZero();
            assertThat(one.tryAcquire("a", 1)).isEqualTo(100 * MS);
        }
    }

    /** One contract, two scopes: per key, the fleet limiter answers as the in-memory one does. */
    @Test
    void theFleetLimiterAnswersLikeTheInMemoryOne() {
        Limit perSecond = Limit.of(4, 5);     // 250 ms a permit: whole microseconds
        Limit perMinute = Limit.of(0.5, 12);  // 2 s a permit
        KeyedLimit<String> memory = KeyedLimiter.<String>builder().bandwidth(perSecond).bandwidth(perMinute)
                .clock(clock).sweepInterval(Duration.ZERO).build();
        SplittableRandom random = new SplittableRandom(48);
        try (FleetLimiter fleet = limiter("contract", perSecond, perMinute)) {
            Probe got = new Probe();
            Probe want = new Probe();
            for (int i = 0; i < 400; i++) {
                now.addAndGet(random.nextLong(0, 1_500) * MS);
                String key = "k" + random.nextInt(4);
                long permits = 1 + random.nextInt(5);
                assertThat(fleet.tryAcquire(key, permits, got)).as("call %d", i).isEqualTo(memory.tryAcquire(key, permits, want));
                assertThat(got.waitNanos()).isEqualTo(want.waitNanos());
                assertThat(got.remaining()).isEqualTo(want.remaining());
                assertThat(got.resetNanos()).isEqualTo(want.resetNanos());
            }
            assertThat(fleet.fallbacks()).isZero();
        }
    }

    @Test
    void withoutRedisEveryCallIsAnsweredNodeLocal() {
        FleetSettings nowhere = FleetSettings.defaults().withRedis("redis://127.0.0.1:1").withTimeoutMs(50);
        try (FleetLimiter limiter = FleetLimiter.start(nowhere, "away", List.of(Limit.of(10, 2)), clock, clock)) {
            assertThat(limiter.tryAcquire("a", 2)).isZero();
            assertThat(limiter.tryAcquire("a", 1)).as("the node-local limit holds").isEqualTo(100 * MS);
            assertThat(limiter.fallbacks()).isEqualTo(2L);
        }
    }
}

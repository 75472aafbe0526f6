package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.sluice.core.Limit;
import org.sluice.testkit.KeyedLimitModel;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.RedisServer;

/**
 * The Redis limiter held to {@link KeyedLimitModel}, the model every scope's limiter
 * keeps, against a real redis-server with the manual clock sent as the script's time.
 * Few tries: each step is a round trip or more.
 */
class FleetLimiterModelTest {

    private static RedisServer redis;
    private static final AtomicInteger TRIES = new AtomicInteger();

    @BeforeContainer
    static void start() {
        redis = RedisServer.start();
    }

    @AfterContainer
    static void stop() {
        redis.close();
    }

    @Provide
    Arbitrary<List<KeyedLimitModel.Step>> steps() {
        return KeyedLimitModel.steps(5, 40);
    }

    @Property(tries = 12)
    void theFleetLimiterKeepsTheModel(@ForAll("steps") List<KeyedLimitModel.Step> steps) throws Exception {
        ManualClock clock = new ManualClock(3_000_000_000L);
        String name = "model" + TRIES.incrementAndGet(); // a fresh limiter's keys in Redis for every try
        try (FleetLimiter limiter = FleetLimiter.start(Fixtures.relaxed(redis.uri()), name,
                List.of(Limit.of(4, 5), Limit.of(0.5, 12)), clock, clock, clock::advanceNanos)) {
            KeyedLimitModel.check(limiter, clock, steps);
            assertThat(limiter.fallbacks()).as("every answer came from Redis").isZero();
        }
    }
}

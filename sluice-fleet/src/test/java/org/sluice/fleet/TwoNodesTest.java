package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.fleet.Fixtures.answer;
import static org.sluice.fleet.Fixtures.claim;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;
import org.sluice.testkit.Together;

/** Two clients as two nodes on one Redis: one limit, one dedupe window. */
class TwoNodesTest {

    private static RedisServer redis;
    private static FleetClient nodeA;
    private static FleetClient nodeB;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        nodeA = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a");
        nodeB = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-b");
    }

    @AfterAll
    static void stop() {
        nodeA.close();
        nodeB.close();
        redis.close();
    }

    /** Redis's own clock in microseconds: the limiter's clock. */
    @SuppressWarnings("unchecked")
    private static long redisMicros() {
        List<Object> t = (List<Object>) redis.call("TIME");
        return Long.parseLong((String) t.get(0)) * 1_000_000L + Long.parseLong((String) t.get(1));
    }

    @Test
    void oneLimitAcrossTwoNodesHammeredConcurrently() throws Exception {
        double rate = 20;
        long burst = 10;
        long inc = FleetGcra.micros(1, rate);
        long tol = FleetGcra.micros(burst, rate);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        int threadsPerNode = 8;
        int callsPerThread = 150;
        long[] startUs = new long[1];
        Together.run(2 * threadsPerNode, t -> {
            FleetClient node = t < threadsPerNode ? nodeA : nodeB;
            for (int i = 0; i < callsPerThread; i++) {
                FleetAnswer a = answer(node.admit("hammer", "src", null, inc, tol, 0, 0, true, false));
                if (a instanceof FleetAnswer.Admitted) {
                    admitted.incrementAndGet();
                } else if (a instanceof FleetAnswer.RateLimited) {
                    refused.incrementAndGet();
                } else {
                    other.incrementAndGet();
                }
            }
        }, () -> startUs[0] = redisMicros());
        long elapsedUs = redisMicros() - startUs[0];

        long bound = burst + (long) Math.ceil(rate * elapsedUs / 1e6);
        assertThat(other.get()).as("fallbacks or other answers").isZero();
        assertThat(admitted.get() + refused.get()).isEqualTo(2 * threadsPerNode * callsPerThread);
        assertThat(admitted.get()).as("admitted within %d us", elapsedUs).isLessThanOrEqualTo((int) bound);
        assertThat(admitted.get()).isGreaterThanOrEqualTo((int) burst);
        assertThat(nodeA.stats().fallbackRateLimit() + nodeB.stats().fallbackRateLimit()).isZero();
    }

    @Test
    void eventToAThenBIsADuplicateWithAsId() {
        FleetAnswer a = claim(nodeA, "acme", "evt-seq");
        assertThat(a).isInstanceOf(FleetAnswer.Admitted.class);
        assertThat(claim(nodeB, "acme", "evt-seq")).isInstanceOf(FleetAnswer.Pending.class);
        assertThat(nodeA.settleCommitted("acme", "src", "evt-seq", a.claimToken(), "hook-from-a", 259_200)).isTrue();
        Fixtures.await("the promote to be drained", () -> nodeA.stats().settlePromoted() >= 1 && nodeA.settleQueueDepth() == 0);
        assertThat(claim(nodeB, "acme", "evt-seq")).isEqualTo(new FleetAnswer.Duplicate("hook-from-a"));
        assertThat((Long) redis.call("TTL", "sluice:{acme}:d:src:evt-seq")).isBetween(259_000L, 259_200L);
    }

    @Test
    void releasedClaimLetsTheNextCopyIn() {
        FleetAnswer a = claim(nodeA, "acme", "evt-rel");
        assertThat(nodeA.settleRelease("acme", "src", "evt-rel", a.claimToken())).isTrue();
        Fixtures.await("the release to be drained", () -> redis.call("EXISTS", "sluice:{acme}:d:src:evt-rel").equals(0L));
        assertThat(claim(nodeB, "acme", "evt-rel")).isInstanceOf(FleetAnswer.Admitted.class);
    }

    @Test
    void releaseWithAnotherTokenLeavesTheClaim() {
        FleetAnswer a = claim(nodeA, "acme", "evt-tok");
        long skipped = nodeB.stats().settleSkipped();
        nodeB.settleRelease("acme", "src", "evt-tok", "not-the-token");
        Fixtures.await("the release to be drained", () -> nodeB.stats().settleSkipped() == skipped + 1);
        assertThat(redis.call("GET", "sluice:{acme}:d:src:evt-tok")).isEqualTo("p:" + a.claimToken());
    }

    @Test
    void sameEventToBothAtOnceAdmitsExactlyOne() throws Exception {
        for (int round = 0; round < 40; round++) {
            String key = "evt-race-" + round;
            FleetAnswer[] from = new FleetAnswer[2];
            Together.run(2, t -> from[t] = claim(t == 0 ? nodeA : nodeB, "race", key));
            List<FleetAnswer> both = List.of(from[0], from[1]);
            assertThat(both).filteredOn(x -> x instanceof FleetAnswer.Admitted).as("round %d", round).hasSize(1);
            assertThat(both).filteredOn(x -> x instanceof FleetAnswer.Pending || x instanceof FleetAnswer.Duplicate)
                    .as("round %d", round).hasSize(1);
        }
    }
}

package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.fleet.Fixtures.claim;
import static org.sluice.fleet.Fixtures.hit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;
import org.sluice.testkit.RedisServer;

/**
 * Lettuce's cluster client against a real (one-node) Redis Cluster owning all 16384
 * slots: every call's keys share the tenant's hash tag, so scripts run in one slot.
 */
class ClusterTest {

    @Test
    void admitsClaimsAndSettlesThroughTheClusterClient() {
        try (RedisServer node = RedisServer.start("--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")) {
            String[] addSlots = new String[16_384 + 2];
            addSlots[0] = "CLUSTER";
            addSlots[1] = "ADDSLOTS";
            for (int i = 0; i < 16_384; i++) {
                addSlots[i + 2] = Integer.toString(i);
            }
            node.call(addSlots);
            Fixtures.await("the cluster to be ok", () -> ((String) node.call("CLUSTER", "INFO")).contains("cluster_state:ok"));

            FleetSettings settings = Fixtures.relaxed(node.uri()).withClusterRedis(List.of(node.uri()));
            try (FleetClient a = FleetClient.start(settings, "node-a");
                 FleetClient b = FleetClient.start(settings, "node-b")) {
                List<FleetAnswer> answers = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    answers.add(hit(i % 2 == 0 ? a : b, "acme"));
                }
                assertThat(answers).filteredOn(x -> x instanceof FleetAnswer.Admitted).hasSize(5);
                assertThat(answers.get(5)).isInstanceOf(FleetAnswer.RateLimited.class);

                FleetAnswer claimed = claim(a, "acme", "evt-1");
                assertThat(claimed).isInstanceOf(FleetAnswer.Admitted.class);
                a.settleCommitted("acme", "src", "evt-1", claimed.claimToken(), "hook-1", 600);
                Fixtures.await("the promote", () -> a.stats().settlePromoted() == 1);
                assertThat(claim(b, "acme", "evt-1")).isEqualTo(new FleetAnswer.Duplicate("hook-1"));

                a.heartbeat().toCompletableFuture().join();
                assertThat(b.heartbeat().toCompletableFuture().join()).isEqualTo(2);
                assertThat(a.resetTenant("acme").toCompletableFuture().join()).isTrue();
                assertThat(hit(b, "acme")).isInstanceOf(FleetAnswer.Admitted.class);
            }
            // the library's limiter: one call per charge (each key's own slot), no batcher
            try (FleetLimiter one = FleetLimiter.start(settings, "lim", List.of(Limit.of(0.01, 3)));
                 FleetLimiter other = FleetLimiter.start(settings, "lim", List.of(Limit.of(0.01, 3)))) {
                assertThat(one.batcher()).isNull();
                assertThat(one.tryAcquire("k1", 2)).isZero();
                assertThat(other.tryAcquire("k1", 1)).isZero();
                assertThat(one.tryAcquire("k1", 1)).as("the burst is shared through the cluster").isPositive();
                assertThat(other.tryAcquire("k2", 3)).isZero();
                assertThat(one.fallbacks() + other.fallbacks()).isZero();
            }
        }
    }
}

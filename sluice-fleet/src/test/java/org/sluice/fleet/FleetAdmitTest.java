package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.sluice.fleet.Fixtures.INC;
import static org.sluice.fleet.Fixtures.TOL;
import static org.sluice.fleet.Fixtures.answer;
import static org.sluice.fleet.Fixtures.claim;
import static org.sluice.fleet.Fixtures.hit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;

/** One client against a real Redis: every answer of the script, and the key layout. */
class FleetAdmitTest {

    private static RedisServer redis;
    private static FleetClient fleet;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        fleet = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a");
    }

    @AfterAll
    static void stop() {
        fleet.close();
        redis.close();
    }

    @Test
    void burstIsAdmittedThenTheTenantScopeRefusesWithAWait() {
        for (int i = 0; i < 5; i++) {
            assertThat(hit(fleet, "burst")).isEqualTo(new FleetAnswer.Admitted(null));
        }
        FleetAnswer refused = hit(fleet, "burst");
        assertThat(refused).isInstanceOf(FleetAnswer.RateLimited.class);
        FleetAnswer.RateLimited rl = (FleetAnswer.RateLimited) refused;
        assertThat(rl.scope()).isEqualTo(FleetAnswer.Scope.TENANT);
        assertThat(rl.waitMs()).isBetween(1L, 100_000L); // one emission interval at most
        assertThat(redis.call("PTTL", "sluice:{burst}:h")).isInstanceOf(Long.class);
        assertThat((Long) redis.call("PTTL", "sluice:{burst}:h")).isBetween(1L, 500_000L); // expires when full again
    }

    @Test
    void bytesRefusalHasTheByteScopeAndKeepsTheHookCharge() {
        long byteInc = FleetGcra.micros(2_000, 1_000); // 2 s of a 1000 B/s budget
        long byteTol = FleetGcra.micros(2_500, 1_000);
        FleetAnswer first = answer(fleet.admit("bytes", "src", null, INC, TOL, byteInc, byteTol, true, false));
        assertThat(first).isEqualTo(new FleetAnswer.Admitted(null));
        FleetAnswer second = answer(fleet.admit("bytes", "src", null, INC, TOL, byteInc, byteTol, true, false));
        assertThat(second).isInstanceOf(FleetAnswer.RateLimited.class);
        assertThat(((FleetAnswer.RateLimited) second).scope()).isEqualTo(FleetAnswer.Scope.TENANT_BYTES);
        // both hooks were charged on the hook bucket: 3 hooks of the burst of 5 remain
        int admitted = 0;
        while (hit(fleet, "bytes") instanceof FleetAnswer.Admitted) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(3);
    }

    @Test
    void claimIsPendingForOthersAndARefusalClaimsNothing() {
        FleetAnswer a = claim(fleet, "dd", "evt-1");
        assertThat(a).isInstanceOf(FleetAnswer.Admitted.class);
        assertThat(a.claimToken()).isNotBlank();
        FleetAnswer b = claim(fleet, "dd", "evt-1");
        assertThat(b).isInstanceOf(FleetAnswer.Pending.class);
        assertThat(((FleetAnswer.Pending) b).retryAfterMs()).isBetween(1L, 30_000L);
        assertThat(redis.call("GET", "sluice:{dd}:d:src:evt-1")).isEqualTo("p:" + a.claimToken());

        // rate-limited: the key is not claimed
        for (int i = 0; i < 5; i++) {
            hit(fleet, "dd");
        }
        FleetAnswer refused = answer(fleet.admit("dd", "src", "evt-2", INC, TOL, 0, 0, true, true));
        assertThat(refused).isInstanceOf(FleetAnswer.RateLimited.class);
        assertThat(redis.call("EXISTS", "sluice:{dd}:d:src:evt-2")).isEqualTo(0L);
    }

    @Test
    void duplicateAndPendingChargeNothing() {
        FleetAnswer a = answer(fleet.admit("free", "src", "e", INC, TOL, 0, 0, true, true));
        assertThat(a).isInstanceOf(FleetAnswer.Admitted.class);
        String tatAfterOne = (String) redis.call("GET", "sluice:{free}:h");
        for (int i = 0; i < 20; i++) {
            assertThat(answer(fleet.admit("free", "src", "e", INC, TOL, 0, 0, true, true)))
                    .isInstanceOf(FleetAnswer.Pending.class);
        }
        assertThat(redis.call("GET", "sluice:{free}:h")).isEqualTo(tatAfterOne);
    }

    @Test
    void nothingAskedIsAdmittedWithoutAStoreCall() {
        long calls = fleet.stats().storeCalls();
        assertThat(answer(fleet.admit("x", "s", null, INC, TOL, 0, 0, false, false)))
                .isEqualTo(new FleetAnswer.Admitted(null));
        assertThat(fleet.stats().storeCalls()).isEqualTo(calls);
    }

    @Test
    void resetForgetsTheTenantsBuckets() {
        while (hit(fleet, "reset") instanceof FleetAnswer.Admitted) {
            // empty the bucket
        }
        assertThat(fleet.resetTenant("reset").toCompletableFuture().join()).isTrue();
        assertThat(redis.call("EXISTS", "sluice:{reset}:h")).isEqualTo(0L);
        assertThat(hit(fleet, "reset")).isInstanceOf(FleetAnswer.Admitted.class);
    }

    @Test
    void badArgumentsNameTheArgument() {
        assertThatThrownBy(() -> fleet.admit("t", "s", null, -1, TOL, 0, 0, true, false))
                .hasMessageContaining("hookIncUs").hasMessageContaining("-1");
        assertThatThrownBy(() -> fleet.admit("t", "s", null, 1, FleetGcra.MAX_MICROS + 1, 0, 0, true, false))
                .hasMessageContaining("hookTolUs");
        assertThatThrownBy(() -> fleet.admit("t", "s", null, INC, TOL, 0, 0, false, true))
                .hasMessageContaining("dedupeKey");
    }
}

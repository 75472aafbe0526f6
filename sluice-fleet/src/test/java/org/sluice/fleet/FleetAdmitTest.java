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

    @Test
    void aValueAnotherWriterLeftAtAKeyFailsThatRequestAloneAndIsLeftAsItWas() {
        FleetAnswer refused = new FleetAnswer.Fallback(FleetAnswer.Reason.ERROR, null);
        long errors = fleet.stats().fallbackError();
        redis.call("SET", "sluice:{junk1}:h", "not-a-time");
        redis.call("SET", "sluice:{junk2}:h", "inf");
        redis.call("SET", "sluice:{junk3}:h", "-5");
        redis.call("HSET", "sluice:{junk4}:b", "f", "v");
        redis.call("SET", "sluice:{junk5}:d:src:odd", "zz:someone else's");
        redis.call("SADD", "sluice:{junk5}:d:src:set", "x");
        assertThat(hit(fleet, "junk1")).isEqualTo(refused);
        assertThat(hit(fleet, "junk2")).isEqualTo(refused);
        assertThat(hit(fleet, "junk3")).isEqualTo(refused);
        long byteInc = FleetGcra.micros(1, 1_000);
        long byteTol = FleetGcra.micros(10, 1_000);
        // the hook bucket is fine, the byte bucket is a hash: nothing of the request is spent
        assertThat(answer(fleet.admit("junk4", "src", null, INC, TOL, byteInc, byteTol, true, false))).isEqualTo(refused);
        assertThat(redis.call("EXISTS", "sluice:{junk4}:h")).isEqualTo(0L);
        assertThat(answer(fleet.admit("junk5", "src", "odd", INC, TOL, 0, 0, true, true))).isEqualTo(refused);
        assertThat(answer(fleet.admit("junk5", "src", "set", INC, TOL, 0, 0, true, true))).isEqualTo(refused);
        assertThat(redis.call("EXISTS", "sluice:{junk5}:h")).isEqualTo(0L);

        assertThat(redis.call("GET", "sluice:{junk1}:h")).isEqualTo("not-a-time");
        assertThat(redis.call("GET", "sluice:{junk2}:h")).isEqualTo("inf");
        assertThat(redis.call("GET", "sluice:{junk5}:d:src:odd")).isEqualTo("zz:someone else's");
        assertThat(fleet.stats().fallbackError() - errors).isEqualTo(6);
        assertThat(fleet.state()).isEqualTo(BreakerState.CLOSED);
        // the next good call is answered by the store, and nothing is degraded
        assertThat(answer(fleet.admit("junk5", "src", "fine", INC, TOL, 0, 0, true, true)))
                .isInstanceOf(FleetAnswer.Admitted.class);
        assertThat(fleet.degraded(FleetKind.RATE_LIMIT)).isFalse();
        assertThat(fleet.degraded(FleetKind.DEDUPE)).isFalse();
    }

    @Test
    void tenantAndSourceIdsOutsideTheRuleAreRefusedNamingTheFieldAndTheValue() {
        long calls = fleet.stats().storeCalls();
        String rule = " must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ";
        assertThatThrownBy(() -> fleet.admit("a:b", "src", null, INC, TOL, 0, 0, true, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tenant" + rule + "\"a:b\"");
        assertThatThrownBy(() -> fleet.admit("t", "a:b", "c", INC, TOL, 0, 0, false, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("source" + rule + "\"a:b\"");
        assertThatThrownBy(() -> fleet.admit(null, "src", null, INC, TOL, 0, 0, true, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tenant" + rule + "null");
        assertThatThrownBy(() -> fleet.settleRelease("t", "a:b", "c", "tok"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("source must be");
        assertThatThrownBy(() -> fleet.settleCommitted("{t}", "src", "c", "tok", "hook", 60))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("tenant must be");
        assertThatThrownBy(() -> fleet.resetTenant("a}b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("tenant must be");
        assertThat(fleet.stats().storeCalls()).isEqualTo(calls);
        assertThat(fleet.settleQueueDepth()).isZero();
    }
}

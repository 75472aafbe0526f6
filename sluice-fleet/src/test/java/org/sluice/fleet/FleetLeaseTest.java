package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;
import org.sluice.testkit.Together;

/**
 * {@link FleetClient#lease}: pacing permits leased in batches from one bucket per
 * destination, on a real {@code redis-server}. The script's arithmetic is checked with
 * exact counts at instants the test chooses ({@code pace.lua}'s test-only "now"); the
 * client against Redis's own clock, as a bound.
 */
class FleetLeaseTest {

    /** 10 permits a second, burst 5: one permit is 100,000 us. */
    private static final long INC = FleetGcra.micros(1, 10);
    private static final long TOL = FleetGcra.micros(5, 10);

    private static RedisServer redis;
    private static String body;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        try (InputStream in = FleetLeaseTest.class.getResourceAsStream("/org/sluice/fleet/pace.lua")) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    /** One run of pace.lua at {@code nowUs}: {granted, wait}. */
    @SuppressWarnings("unchecked")
    private static List<Long> paceAt(String key, long inc, long tol, int wanted, long nowUs) {
        return (List<Long>) redis.call("EVAL", body, "1", key, Long.toString(inc), Long.toString(tol),
                Integer.toString(wanted), Long.toString(nowUs));
    }

    private static FleetLease lease(FleetClient c, String destination, int wanted) {
        CompletionStage<FleetLease> stage = c.lease(destination, INC, TOL, wanted);
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("lease's stage did not complete normally", e);
        }
    }

    @Test
    void aBatchIsGrantedWhatThatManySinglePermitsWouldBeAtTheSameInstant() {
        // one permit per 100 s, burst 5: a key's expiry (real milliseconds) outlives the test
        long inc = FleetGcra.micros(1, 0.01);
        long tol = FleetGcra.micros(5, 0.01);
        String key = "sluice:pace:{exact}";
        long t0 = 1_000_000_000_000L;
        assertThat(paceAt(key, inc, tol, 8, t0)).as("a full bucket grants its burst").containsExactly(5L, inc);
        assertThat(paceAt(key, inc, tol, 8, t0)).as("empty: nothing, next after one increment")
                .containsExactly(0L, inc);
        // 2.5 increments later 2.5 permits have come back: 2 granted, the third half way
        assertThat(paceAt(key, inc, tol, 8, t0 + 5 * inc / 2)).containsExactly(2L, inc / 2);
        // asking for fewer than there is room for grants them all; the next is due at once
        assertThat(paceAt(key, inc, tol, 1, t0 + 25 * inc / 2)).containsExactly(1L, 0L);
        // the same, one permit at a time, on a second bucket: the same totals
        String single = "sluice:pace:{single}";
        int granted = 0;
        for (int i = 0; i < 8; i++) {
            granted += paceAt(single, inc, tol, 1, t0).get(0).intValue();
        }
        assertThat(granted).isEqualTo(5);
        int later = 0;
        for (int i = 0; i < 8; i++) {
            later += paceAt(single, inc, tol, 1, t0 + 5 * inc / 2).get(0).intValue();
        }
        assertThat(later).isEqualTo(2);
    }

    @Test
    void aCallerWhoseRateRoseMeetsADebtBeyondItsNewToleranceAndIsGrantedNothingNotANegativeGrant() {
        // 1 a second, burst 1, then 2 a second, burst 1 (an adaptive pace that rose): the debt
        // of one second left by the first grant is beyond the new tolerance of half a second
        String key = "sluice:pace:{rose}";
        long t0 = 7_000_000_000_000L;
        long slowInc = FleetGcra.micros(1, 1);
        long fastInc = FleetGcra.micros(1, 2);
        assertThat(paceAt(key, slowInc, slowInc, 4, t0)).containsExactly(1L, slowInc);
        assertThat(paceAt(key, fastInc, fastInc, 4, t0)).as("nothing, the next when the debt is down to the tolerance")
                .containsExactly(0L, slowInc);
        assertThat(paceAt(key, fastInc, fastInc, 4, t0 + slowInc)).as("the bucket was left as it was")
                .containsExactly(1L, fastInc);
        assertThat(FleetClient.parseLease(List.of(0L, 5L), 4)).isEqualTo(new FleetLease.Granted(0, 5));
    }

    @Test
    void aFullBucketIsForgottenAndAnOversizedPermitOnlyFitsAFullOne() {
        String key = "sluice:pace:{oversized}";
        long t0 = 5_000_000_000_000L;
        long inc = 300_000_000L;
        long tol = 200_000_000L;
        assertThat(paceAt(key, inc, tol, 3, t0)).containsExactly(1L, tol);
        assertThat(paceAt(key, inc, tol, 3, t0 + tol / 2)).containsExactly(0L, tol / 2);
        assertThat(paceAt(key, inc, tol, 3, t0 + tol)).containsExactly(1L, tol);
        String idle = "sluice:pace:{idle}";
        paceAt(idle, INC, TOL, 1, t0);
        assertThat((Long) redis.call("PTTL", idle)).as("the key expires once the bucket is full again")
                .isBetween(1L, INC / 1000);
    }

    @Test
    void aBucketThisScriptDidNotWriteIsAnErrorNotAGrant() {
        redis.call("SET", "sluice:pace:{foreign}", "not-a-time");
        try (FleetClient c = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-foreign")) {
            assertThat(lease(c, "foreign", 3)).isEqualTo(new FleetLease.Fallback(FleetAnswer.Reason.ERROR));
        }
    }

    @Test
    void twoNodesLeasingConcurrentlyShareOneRate() throws Exception {
        try (FleetClient a = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-a");
             FleetClient b = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-b")) {
            AtomicLong granted = new AtomicLong();
            AtomicLong other = new AtomicLong();
            long[] startUs = new long[1];
            Together.run(8, t -> {
                FleetClient node = t % 2 == 0 ? a : b;
                for (int i = 0; i < 100; i++) {
                    FleetLease l = lease(node, "shared", 4);
                    if (l instanceof FleetLease.Granted g) {
                        granted.addAndGet(g.permits());
                    } else {
                        other.incrementAndGet();
                    }
                }
            }, () -> startUs[0] = redisMicros());
            long elapsedUs = redisMicros() - startUs[0];
            assertThat(other.get()).as("fallbacks").isZero();
            long bound = 5 + (long) Math.ceil(10 * elapsedUs / 1e6);
            assertThat(granted.get()).as("granted within %d us", elapsedUs).isLessThanOrEqualTo(bound)
                    .isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void anUnreachableStoreIsAFallbackWithinTheBudget() {
        RedisServer doomed = RedisServer.start();
        try (FleetClient c = FleetClient.start(FleetSettings.defaults().withRedis(doomed.uri()).withTimeoutMs(500),
                "node-down")) {
            assertThat(lease(c, "down", 2)).isInstanceOf(FleetLease.Granted.class);
            doomed.kill9();
            FleetLease l = lease(c, "down", 2);
            assertThat(l).isInstanceOf(FleetLease.Fallback.class);
        } finally {
            doomed.close();
        }
    }

    @Test
    void badArgumentsNameTheArgument() {
        try (FleetClient c = FleetClient.start(Fixtures.relaxed(redis.uri()), "node-args")) {
            assertThatThrownBy(() -> c.lease("bad:name", INC, TOL, 1)).hasMessageContaining("destination");
            assertThatThrownBy(() -> c.lease("ok", INC, TOL, 0)).hasMessageContaining("wanted must be at least 1, got 0");
            assertThatThrownBy(() -> c.lease("ok", 0, TOL, 1)).hasMessageContaining("paceIncUs");
        }
    }

    @SuppressWarnings("unchecked")
    private static long redisMicros() {
        List<Object> t = (List<Object>) redis.call("TIME");
        return Long.parseLong((String) t.get(0)) * 1_000_000L + Long.parseLong((String) t.get(1));
    }
}

package org.sluice.fleet;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Helpers shared by the fleet tests. */
final class Fixtures {

    /**
     * Hook charge for one hook per 100 s, burst 5: slow enough that nothing refills while
     * a test runs, however busy the machine (tests never wait for a refill).
     */
    static final long INC = FleetGcra.micros(1, 0.01);
    static final long TOL = FleetGcra.micros(5, 0.01);

    private Fixtures() {
    }

    /**
     * Settings for tests that are not about the budget: a generous budget so a busy
     * machine does not turn answers into fallbacks, and a breaker that does not open.
     */
    static FleetSettings relaxed(String uri) {
        return FleetSettings.defaults().withRedis(uri).withTimeoutMs(5_000).withBreaker(1.0, 1_000_000, 10_000, 5_000);
    }

    /** The answer; the stage must complete (it always does, within its budget). */
    static FleetAnswer answer(CompletionStage<FleetAnswer> stage) {
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("admit's stage did not complete normally", e);
        }
    }

    static FleetAnswer claim(FleetClient c, String tenant, String key) {
        return answer(c.admit(tenant, "src", key, INC, TOL, 0, 0, false, true));
    }

    static FleetAnswer hit(FleetClient c, String tenant) {
        return answer(c.admit(tenant, "src", null, INC, TOL, 0, 0, true, false));
    }

    /** Waits for a condition that background work (a reconnect, a drain, a TTL) makes true. */
    static void await(String what, BooleanSupplier condition) {
        org.sluice.testkit.Eventually.until(what, condition);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.PacedDispatchRig.drain;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.HookStore;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.ManualClock;

/**
 * A destination paced by the fleet ({@link FleetPacer}): two dispatchers, each on its own
 * real RocksDB store, lease from one bucket and send to one real {@link HookReceiver}, on a
 * manual clock that the test advances between passes, so every count is exact. The bucket
 * is {@link SharedBucket}, the fleet's GCRA in memory on the same clock (the same grant
 * rule as {@code pace.lua}, which {@code FleetLeaseTest} and the end-to-end
 * {@code KafkaFleetPacingTest} run on a real Redis).
 */
class FleetPacedDispatchTest {

    @TempDir
    Path dir;
    private PacedDispatchRig rig;
    private ManualClock clock;
    private LongSupplier wall;

    @BeforeEach
    void rig() {
        rig = new PacedDispatchRig(dir);
        clock = rig.clock;
        wall = rig.wall;
    }

    @AfterEach
    void closeAll() throws Exception {
        rig.close();
    }

    /**
     * One destination's bucket shared by every dispatcher of a test: the GCRA in integer
     * nanoseconds on the test's clock, granting k of n permits as {@code pace.lua} does.
     * Unreachable while {@link #down} is set; counts its leases.
     */
    private final class SharedBucket implements FleetPacing {
        long tat = Long.MIN_VALUE;
        boolean down;
        int divisor = 1;
        final List<Integer> wanted = new ArrayList<>();
        final List<Limit> limits = new ArrayList<>();

        @Override
        public synchronized Lease lease(String destination, Limit limit, int n) {
            wanted.add(n);
            limits.add(limit);
            if (down) {
                return new Unreachable();
            }
            long now = clock.nanoTime();
            long inc = limit.intervalNanos();
            long tol = limit.toleranceNanos();
            long debt = tat == Long.MIN_VALUE ? 0 : Math.max(0, tat - now);
            int granted = (int) Math.max(0, Math.min(n, (tol - debt) / inc)); // a debt past tol (a rate that rose): 0
            tat = now + debt + granted * inc;
            long left = tat - now;
            return new Granted(granted, Math.max(0, left + inc - tol));
        }

        @Override
        public synchronized int fallbackDivisor() {
            return divisor;
        }
    }

    private static Destination paced(HookReceiver r, Limit rate) {
        return new Destination("app", new HttpTarget(r.uri("/h")), 60_000, 100, Optional.of(rate),
                OutboundHeaders.of("destinations.app", List.of("content-type"), Map.of(), null, "0.1.0-test"),
                Ordering.NONE, RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    @Test
    void twoNodesLeasingOneBucketSendExactlyBurstPlusRateTimesElapsedOneLeaseAPass() {
        HookReceiver r = rig.receiver();
        SharedBucket fleet = new SharedBucket();
        Limit rate = Limit.of(10, 5); // a permit every 100 ms
        HookStore storeA = rig.store("a");
        HookStore storeB = rig.store("b");
        Dispatcher a = rig.dispatcher(storeA, paced(r, rate), fleet, new SimpleMeterRegistry());
        Dispatcher b = rig.dispatcher(storeB, paced(r, rate), fleet, new SimpleMeterRegistry());
        rig.commit(storeA, 60);
        rig.commit(storeB, 60);

        int passes = 0;
        for (int step = 0; step <= 30; step++) { // 3 s in steps of 100 ms, the nodes taking turns to ask first
            passes += step % 2 == 0 ? drain(a) + drain(b) : drain(b) + drain(a);
            assertThat(r.requestCount()).as("after %d ms", step * 100).isEqualTo(5 + step);
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(fleet.wanted).as("one lease a pass, for every row the pass could send").hasSize(passes)
                .allMatch(n -> n == 60 || n > 30);
        assertThat(storeA.deliveries().counts("app", wall.getAsLong()).pending()).as("A delivered some").isLessThan(60);
        assertThat(storeB.deliveries().counts("app", wall.getAsLong()).pending()).as("B delivered some").isLessThan(60);
    }

    @Test
    void whileTheFleetDoesNotAnswerANodePacesAtRateAndBurstOverLiveNodesThenLeasesAgain() {
        HookReceiver r = rig.receiver();
        SharedBucket fleet = new SharedBucket();
        fleet.down = true;
        fleet.divisor = 2;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HookStore store = rig.store("a");
        Dispatcher d = rig.dispatcher(store, paced(r, Limit.of(10, 6)), fleet, registry); // down: 5/s, burst 3
        rig.commit(store, 100);
        for (int step = 0; step <= 20; step++) { // 2 s in steps of 100 ms
            drain(d);
            assertThat(r.requestCount()).as("after %d ms", step * 100).isEqualTo(3 + step / 2);
            clock.advance(Duration.ofMillis(100));
        }
        double fallbacks = registry.get("sluice.delivery.pace.leases").tag("answer", "fallback").counter().count();
        assertThat(fallbacks).isEqualTo(fleet.wanted.size());

        fleet.down = false; // back: the next pass leases from the fleet's bucket, full: its burst of 6
        int before = r.requestCount();
        drain(d);
        assertThat(r.requestCount() - before).isEqualTo(6);
        assertThat(registry.get("sluice.delivery.pace.leases").tag("answer", "fleet").counter().count()).isPositive();
    }

    @Test
    void aPassWithNothingDueLeasesNothing() {
        HookReceiver r = rig.receiver();
        SharedBucket fleet = new SharedBucket();
        HookStore store = rig.store("a");
        Dispatcher d = rig.dispatcher(store, paced(r, Limit.of(10, 5)), fleet, new SimpleMeterRegistry());
        drain(d);
        clock.advance(Duration.ofSeconds(1));
        drain(d);
        assertThat(fleet.wanted).as("no Redis call without a row to send").isEmpty();
        rig.commit(store, 2);
        drain(d);
        assertThat(fleet.wanted).as("one lease for both rows, then none: nothing is due").containsExactly(2);
        assertThat(r.requestCount()).isEqualTo(2);
    }

    @Test
    void anAdaptiveDestinationLeasesTheFleetsBucketAtItsPaceNowAndNothingWhileARetryAfterHolds() {
        HookReceiver r = rig.receiver();
        SharedBucket fleet = new SharedBucket();
        HookStore store = rig.store("a");
        Dispatcher d = rig.dispatcher(store, AdaptivePacedDispatchTest.adaptive(r, 5_000), fleet, new SimpleMeterRegistry());
        rig.commit(store, 200);
        for (int step = 0; step < 40; step++) {
            drain(d); // its last pass started nothing, so no answer came after its lease
            double pace = d.activity().of("app").orElseThrow().pacePerSecond();
            Limit leased = fleet.limits.get(fleet.limits.size() - 1);
            assertThat(leased.rate()).as("step %d", step).isEqualTo(pace);
            assertThat(leased.burst()).isEqualTo(AdaptivePace.burst(Math.round(pace * 1000)));
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(fleet.limits.get(fleet.limits.size() - 1).rate()).isGreaterThan(fleet.limits.get(0).rate());

        r.plan(HookReceiver.Answer.status(429).withHeader("Retry-After", "1"));
        drain(d);
        int leases = fleet.wanted.size();
        for (int step = 1; step < 10; step++) {
            clock.advance(Duration.ofMillis(100));
            drain(d);
            assertThat(fleet.wanted).as("%d ms into the hold", step * 100).hasSize(leases);
        }
        clock.advance(Duration.ofMillis(100));
        drain(d);
        assertThat(fleet.wanted.size()).isGreaterThan(leases);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
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

    private static final long T0 = 1_800_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock();
    private final LongSupplier wall = () -> T0 + clock.nanoTime() / 1_000_000;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
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

        @Override
        public synchronized Lease lease(String destination, Limit limit, int n) {
            wanted.add(n);
            if (down) {
                return new Unreachable();
            }
            long now = clock.nanoTime();
            long inc = limit.intervalNanos();
            long tol = limit.toleranceNanos();
            long debt = tat == Long.MIN_VALUE ? 0 : Math.max(0, tat - now);
            int granted = (int) Math.min(n, (tol - debt) / inc);
            tat = now + debt + granted * inc;
            long left = tat - now;
            return new Granted(granted, Math.max(0, left + inc - tol));
        }

        @Override
        public synchronized int fallbackDivisor() {
            return divisor;
        }
    }

    private HookStore store(String name) {
        HookStore s = RocksHookStore.open(dir.resolve(name), RocksHookStore.Options.defaults().withWallClock(wall));
        closing.add(s);
        return s;
    }

    private Dispatcher dispatcher(HookStore store, Destination d, FleetPacing pacing, MeterRegistry registry) {
        Dispatcher dispatcher = new Dispatcher(List.of(d), store, pacing, clock, wall, registry, new SplittableRandom(7),
                Duration.ofSeconds(5), (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind, org.sluice.edge.netio.TestTransport.io(), null, w));
        closing.add(dispatcher);
        return dispatcher;
    }

    private static Destination paced(HookReceiver r, Limit rate) {
        return new Destination("app", new HttpTarget(r.uri("/h")), 60_000, 100, Optional.of(rate),
                OutboundHeaders.of("destinations.app", List.of("content-type"), Map.of(), null, "0.1.0-test"),
                Ordering.NONE, RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private void commit(HookStore store, int n) {
        for (int i = 0; i < n; i++) {
            PendingHook h = new PendingHook("acme", "gh", null, wall.getAsLong(), Map.of("Content-Type", "application/json"),
                    ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), List.of("app"));
            assertThat(store.commit(List.of(h)).get(0).status()).isEqualTo(CommitResult.Status.ACCEPTED);
        }
    }

    /** Passes until one starts nothing, each waited for until its attempts are answered; returns the passes run. */
    private static int drain(Dispatcher d) {
        int passes = 0;
        int started;
        do {
            started = d.pump();
            passes++;
            assertThat(d.awaitIdle(WAIT)).as("attempts answered within " + WAIT).isTrue();
        } while (started > 0);
        return passes;
    }

    private HookReceiver receiver() {
        HookReceiver r = HookReceiver.start(clock);
        closing.add(r);
        return r;
    }

    @Test
    void twoNodesLeasingOneBucketSendExactlyBurstPlusRateTimesElapsedOneLeaseAPass() {
        HookReceiver r = receiver();
        SharedBucket fleet = new SharedBucket();
        Limit rate = Limit.of(10, 5); // a permit every 100 ms
        HookStore storeA = store("a");
        HookStore storeB = store("b");
        Dispatcher a = dispatcher(storeA, paced(r, rate), fleet, new SimpleMeterRegistry());
        Dispatcher b = dispatcher(storeB, paced(r, rate), fleet, new SimpleMeterRegistry());
        commit(storeA, 60);
        commit(storeB, 60);

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
        HookReceiver r = receiver();
        SharedBucket fleet = new SharedBucket();
        fleet.down = true;
        fleet.divisor = 2;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HookStore store = store("a");
        Dispatcher d = dispatcher(store, paced(r, Limit.of(10, 6)), fleet, registry); // down: 5/s, burst 3
        commit(store, 100);
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
        HookReceiver r = receiver();
        SharedBucket fleet = new SharedBucket();
        HookStore store = store("a");
        Dispatcher d = dispatcher(store, paced(r, Limit.of(10, 5)), fleet, new SimpleMeterRegistry());
        drain(d);
        clock.advance(Duration.ofSeconds(1));
        drain(d);
        assertThat(fleet.wanted).as("no Redis call without a row to send").isEmpty();
        commit(store, 2);
        drain(d);
        assertThat(fleet.wanted).as("one lease for both rows, then none: nothing is due").containsExactly(2);
        assertThat(r.requestCount()).isEqualTo(2);
    }
}

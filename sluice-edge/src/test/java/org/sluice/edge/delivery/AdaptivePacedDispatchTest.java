package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.PacedDispatchRig.drain;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.HookStore;
import org.sluice.testkit.HookReceiver;

/**
 * A destination paced {@code adaptive} (1 to 100 per second) in a dispatcher sending to a real
 * HTTP receiver, on a manual clock advanced 100 ms between drained passes: every pass's
 * attempts are answered at the instant they start, so each step's change of the pace is
 * exact. The receiver takes everything, then answers 429 to everything, then takes
 * everything again: the pace rises by at most one step a step, falls by exactly one cut in
 * each step that met 429s (however many), reaches its min, and rises again until the
 * backlog is delivered. A {@code Retry-After} holds every attempt of the destination.
 */
class AdaptivePacedDispatchTest {

    private static final Duration STEP = Duration.ofMillis(100);

    @TempDir
    Path dir;
    private PacedDispatchRig rig;

    @BeforeEach
    void rig() {
        rig = new PacedDispatchRig(dir);
    }

    @AfterEach
    void closeAll() throws Exception {
        rig.close();
    }

    /**
     * Adaptive from 1 to 100 per second (steps of 1), retried after 50-100 ms (or a Retry-After up to
     * {@code maxMs}), a breaker that never opens.
     */
    static Destination adaptive(HookReceiver r, long maxMs) {
        return new Destination("app", new HttpTarget(r.uri("/h")), 60_000, 100, Optional.empty(),
                OutboundHeaders.of("destinations.app", List.of("content-type"), Map.of(), null, "0.1.0-test"),
                Ordering.NONE, RetryPolicy.of("destinations.app", 100, maxMs, 1_000_000, 86_400, List.of()),
                new BreakerSettings(1_000_000, 1_000, 1_000, 0), Optional.empty(),
                Optional.of(new AdaptiveRate(1_000, 100_000)));
    }

    private static long paceMilli(Dispatcher d) {
        return Math.round(d.activity().of("app").orElseThrow().pacePerSecond() * 1000);
    }

    @Test
    void thePaceRisesWhileTheReceiverTakesEverythingFallsOnceAStepOn429sAndRecoversAfter() {
        HookReceiver r = rig.receiver();
        AtomicBoolean full = new AtomicBoolean();
        r.answerWhen(x -> full.get(), HookReceiver.Answer.status(429)).defaultAnswer(HookReceiver.Answer.status(200));
        HookStore store = rig.store("a");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Dispatcher d = rig.dispatcher(store, adaptive(r, 100), null, registry);
        rig.commit(store, 600);
        assertThat(paceMilli(d)).isEqualTo(1_000);

        // taking everything: at most one rise (of 1/s) a step, never past max
        for (int step = 0; step < 60; step++) {
            long before = paceMilli(d);
            drain(d);
            assertThat(paceMilli(d)).as("step %d", step).isIn(before, before + 1_000);
            rig.clock.advance(STEP);
        }
        long top = paceMilli(d);
        assertThat(top).isGreaterThanOrEqualTo(20_000);
        assertThat(registry.get("sluice.delivery.pace.per.second").tag("destination", "app").gauge().value())
                .isEqualTo(top / 1000.0);

        // 429 to everything: exactly one cut to 7/10 in each step that sent anything, down to min, not below
        full.set(true);
        int sentBefore = r.requestCount();
        int cuts = 0;
        for (int step = 0; step < 60; step++) {
            long before = paceMilli(d);
            int sent = r.requestCount();
            drain(d);
            long expected = r.requestCount() > sent ? Math.max(1_000, before * 7 / 10) : before;
            assertThat(paceMilli(d)).as("step %d of the 429s", step).isEqualTo(expected);
            cuts += expected < before ? 1 : 0;
            rig.clock.advance(STEP);
        }
        assertThat(paceMilli(d)).isEqualTo(1_000);
        int refused = r.requestCount() - sentBefore;
        assertThat(cuts).isPositive().isLessThan(refused); // several 429s a step at first, one cut each step

        // taking everything again: the pace rises again and the backlog is delivered, nothing lost
        full.set(false);
        int steps = 0;
        while (store.deliveries().counts("app", rig.wall.getAsLong()).pending() > 0) {
            assertThat(steps++).as("steps to deliver the backlog").isLessThan(1_000);
            long before = paceMilli(d);
            drain(d);
            assertThat(paceMilli(d)).isIn(before, before + 1_000);
            rig.clock.advance(STEP);
        }
        assertThat(paceMilli(d)).isGreaterThan(10_000);
        assertThat(store.deliveries().counts("app", rig.wall.getAsLong()).dead()).isZero();
        assertThat(r.requestCount() - refused).isEqualTo(600); // each hook delivered once
    }

    @Test
    void aRetryAfterHoldsEveryAttemptOfTheDestinationUntilItPasses() {
        HookReceiver r = rig.receiver();
        r.plan(HookReceiver.Answer.status(429).withHeader("Retry-After", "2")).defaultAnswer(HookReceiver.Answer.status(200));
        HookStore store = rig.store("a");
        Dispatcher d = rig.dispatcher(store, adaptive(r, 5_000), null, new SimpleMeterRegistry());
        rig.commit(store, 10);
        drain(d);
        assertThat(r.requestCount()).isEqualTo(1); // min: one a second, and that one answered 429, Retry-After: 2
        for (int step = 1; step < 20; step++) {
            rig.clock.advance(STEP);
            drain(d); // a new hook's row and the other rows are due, the bucket full after 1 s: all held
            assertThat(r.requestCount()).as("%d ms after the 429", step * 100).isEqualTo(1);
        }
        rig.clock.advance(STEP);
        drain(d);
        assertThat(r.requestCount()).isEqualTo(2);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.ManualClock;

/**
 * The start of a destination's run of failures outlives a restart of the node, on each kind of
 * control state (one subclass per kind): a real RocksDB store in a temp dir holds the delivery
 * rows, a real {@link HookReceiver} answers, and the wall clock is manual, so a run of an hour
 * takes no time. "A restart" closes the dispatcher and the control state (and the store) and
 * opens new ones on the same data: only what was stored carries over.
 */
abstract class StoredFailureRunContract {

    static final long T0 = 1_800_000_000_000L;
    static final long MINUTE = 60_000;
    static final long HOUR = 60 * MINUTE;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock();
    final LongSupplier wall = () -> T0 + clock.nanoTime() / 1_000_000;
    private HookReceiver receiver;
    private RocksHookStore store;
    private ControlState control;
    private Dispatcher dispatcher;

    /** This kind's control state over {@code store} (the kafka kind keeps its own on the broker). */
    abstract ControlState openControl(RocksHookStore store);

    @BeforeEach
    void open() {
        receiver = HookReceiver.start(clock).defaultAnswer(Answer.status(503));
        start();
    }

    @AfterEach
    void closeAll() throws Exception {
        stop();
        receiver.close();
    }

    private void start() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall));
        control = openControl(store);
        Destination app = new Destination("app", new HttpTarget(receiver.uri("/app")), 60_000, 8, Optional.empty(),
                OutboundHeaders.of("destinations.app", List.of("content-type"), Map.of(), null, "0.1.0-test"),
                Ordering.NONE,
                RetryPolicy.of("destinations.app", 1000, 1000, 1000, 259_200, RetryPolicy.DEFAULT_PERMANENT_STATUSES),
                new BreakerSettings(1000, 30_000, 600_000, HOUR));
        dispatcher = new Dispatcher(List.of(app), store, control, clock, wall, new SimpleMeterRegistry(),
                new SplittableRandom(7),
                (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind, org.sluice.edge.netio.TestTransport.io(), null, w));
        dispatcher.audit(DeliveryAudit.of(control));
    }

    private void stop() throws Exception {
        if (dispatcher != null) {
            dispatcher.close();
        }
        if (control instanceof AutoCloseable c) {
            c.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private void restart() throws Exception {
        stop();
        start();
    }

    private void commit() {
        PendingHook hook = new PendingHook("acme", "gh", null, wall.getAsLong(), Map.of("Content-Type", "application/json"),
                "{}".getBytes(StandardCharsets.UTF_8), List.of("app"));
        assertThat(store.commit(List.of(hook)).get(0).status()).isEqualTo(CommitResult.Status.ACCEPTED);
    }

    /** One pass at the clock's time, then waits until each attempt it started is answered and recorded. */
    private int pass() {
        int started = dispatcher.pump();
        assertThat(dispatcher.awaitIdle(WAIT)).as("attempts answered within " + WAIT).isTrue();
        return started;
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    private long appRequests() {
        return receiver.received().stream().filter(r -> r.path().equals("/app")).count();
    }

    @Test
    void aRestartInTheMiddleOfTheRunStillDisablesAtTheStoredStart() throws Exception {
        commit();
        assertThat(pass()).isEqualTo(1); // fails at T0: the run begins
        advance(30 * MINUTE);
        assertThat(pass()).isEqualTo(1); // stores the run's start (older than a minute), then fails again
        assertThat(control.failingSince()).containsExactly(Map.entry("app", T0));

        restart();
        advance(30 * MINUTE);
        assertThat(pass()).isEqualTo(1); // takes the stored start up, then fails an hour after it
        assertThat(control.disabledDestinations()).isEmpty();
        assertThat(pass()).as("disabled: nothing sent").isZero();
        assertThat(control.disabledDestinations()).containsOnlyKeys("app");
        assertThat(control.disabledDestinations().get("app").atMillis()).isEqualTo(T0 + HOUR);
        assertThat(control.failingSince()).as("the disable ends the run").isEmpty();
        assertThat(appRequests()).isEqualTo(3);

        AuditRecord audit = control.audit(1).get(0);
        assertThat(audit.action()).isEqualTo("disable");
        assertThat(audit.actor()).isEqualTo(ControlState.SLUICE_ACTOR).isEqualTo("sluice");
        assertThat(audit.timeMillis()).isEqualTo(T0 + HOUR);
        assertThat(audit.before()).containsEntry("destination", "app").containsEntry("disabled", null);
        assertThat(audit.after()).containsEntry("destination", "app")
                .containsEntry("failing_since", "2027-01-15T08:00:00.000Z")
                .containsEntry("disabled", Map.of("at", "2027-01-15T09:00:00.000Z", "last_error", "HTTP 503"));
    }

    @Test
    void aSuccessClearsTheStoredStartSoTheRunAfterARestartCountsFromItsOwnFailure() throws Exception {
        commit();
        pass(); // fails at T0
        advance(30 * MINUTE);
        pass(); // stores T0, fails again
        assertThat(control.failingSince()).containsExactly(Map.entry("app", T0));

        receiver.plan(Answer.status(200));
        advance(MINUTE);
        assertThat(pass()).isEqualTo(1); // delivered at T0 + 31 min
        assertThat(pass()).isZero(); // the next pass clears the start
        assertThat(control.failingSince()).isEmpty();

        commit();
        assertThat(pass()).isEqualTo(1); // a new run begins at T0 + 31 min
        advance(2 * MINUTE);
        assertThat(pass()).isEqualTo(1); // stores it, fails again
        assertThat(control.failingSince()).containsExactly(Map.entry("app", T0 + 31 * MINUTE));

        restart();
        advance(38 * MINUTE);
        pass(); // T0 + 71 min: past an hour from T0, not from the new run
        pass();
        assertThat(control.disabledDestinations()).isEmpty();
        advance(21 * MINUTE);
        pass(); // T0 + 92 min: an hour and a minute into the new run
        pass();
        assertThat(control.disabledDestinations()).containsOnlyKeys("app");
        assertThat(control.disabledDestinations().get("app").atMillis()).isEqualTo(T0 + 92 * MINUTE);
        assertThat(appRequests()).isEqualTo(7);
    }

    @Test
    void aRunShorterThanAMinuteIsNotStored() throws Exception {
        commit();
        pass(); // fails at T0
        advance(59_000);
        pass(); // 59 s: not stored yet
        assertThat(control.failingSince()).isEmpty();
        advance(1_000);
        pass(); // a minute: stored
        assertThat(control.failingSince()).containsExactly(Map.entry("app", T0));
    }
}

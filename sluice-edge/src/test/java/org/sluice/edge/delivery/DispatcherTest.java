package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.ManualClock;

/**
 * The dispatcher end to end: a real RocksDB store in a temp dir, real {@link HookReceiver}
 * sockets, and (where time matters) a manual clock that the test advances before each
 * {@link Dispatcher#pump()}; nothing sleeps to make time pass.
 */
class DispatcherTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock();
    private LongSupplier wall = () -> T0 + clock.nanoTime() / 1_000_000;
    private HookStore store;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        if (store != null) {
            store.close();
        }
    }

    // ---------------------------------------------------------------- fixtures

    /** The settings of one test destination; defaults as configured, unpaced, unsigned. */
    private static final class Spec {
        final String name;
        final URI url;
        int maxInFlight = 8;
        long timeoutMs = 60_000;
        Limit rate;
        Ordering ordering = Ordering.NONE;
        RetryPolicy retry = RetryPolicy.defaults();
        BreakerSettings breaker = BreakerSettings.defaults();
        boolean signed;

        Spec(String name, URI url) {
            this.name = name;
            this.url = url;
        }

        Destination build() {
            WebhookSigner signer = signed ? WebhookSigner.fromSecret("destinations." + name + ".signing.secret", SECRET) : null;
            return new Destination(name, new HttpTarget(url), timeoutMs,
                    maxInFlight, Optional.ofNullable(rate),
                    OutboundHeaders.of("destinations." + name, List.of("content-type"), Map.of(), signer, "0.1.0-test"),
                    ordering, retry, breaker);
        }
    }

    private HookReceiver receiver(Clock c) {
        HookReceiver r = HookReceiver.start(c);
        closing.add(r);
        return r;
    }

    private HookStore openStore() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall));
        return store;
    }

    private Dispatcher dispatcher(Clock c, MeterRegistry registry, RandomGenerator random, Duration grace, Spec... specs) {
        List<Destination> ds = new ArrayList<>();
        for (Spec s : specs) {
            ds.add(s.build());
        }
        Dispatcher d = new Dispatcher(ds, store, c, wall, registry, random, grace,
                (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind, org.sluice.edge.netio.TestTransport.io(), null, w));
        closing.add(d);
        return d;
    }

    private Dispatcher dispatcher(Spec... specs) {
        return dispatcher(clock, new SimpleMeterRegistry(), new SplittableRandom(7), Duration.ofSeconds(5), specs);
    }

    private static PendingHook hook(String tenant, String source, String body, long receivedAt, String... destinations) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        return new PendingHook(tenant, source, null, receivedAt, headers, body.getBytes(StandardCharsets.UTF_8),
                List.of(destinations));
    }

    private String commit(String tenant, String source, String body, String... destinations) {
        CommitResult r = store.commit(List.of(hook(tenant, source, body, wall.getAsLong(), destinations))).get(0);
        assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
        return r.id();
    }

    /** One pass, then waits until every attempt it started is answered and recorded. */
    private static int pumpAndSettle(Dispatcher d) {
        int started = d.pump();
        assertThat(d.awaitIdle(WAIT)).as("attempts answered within " + WAIT).isTrue();
        return started;
    }

    /** Passes until one starts nothing; returns attempts started. */
    private static int drain(Dispatcher d) {
        int total = 0;
        for (int started = pumpAndSettle(d); started > 0; started = pumpAndSettle(d)) {
            total += started;
        }
        return total;
    }

    private DeliveryRow row(String id, String destination) {
        return store.deliveries().deliveries(id).stream().filter(r -> r.destination().equals(destination)).findFirst()
                .orElseThrow();
    }

    private void advanceMillis(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    // ---------------------------------------------------------------- fan-out

    @Test
    void tenThousandHooksOverFourSourcesReachBothDestinationsExactlyOnceSignedAndByteIdentical() throws Exception {
        wall = System::currentTimeMillis;
        openStore();
        HookReceiver a = receiver(Clock.system());
        HookReceiver b = receiver(Clock.system());
        Spec sa = new Spec("a", a.uri("/hooks"));
        sa.signed = true;
        sa.maxInFlight = 16;
        Spec sb = new Spec("b", b.uri("/in?x=1"));
        sb.signed = true;
        sb.maxInFlight = 8;
        Dispatcher d = dispatcher(Clock.system(), new SimpleMeterRegistry(), new SplittableRandom(1), Duration.ofSeconds(5), sa, sb);
        d.start();

        int total = 10_000;
        Map<String, byte[]> bodies = new HashMap<>();
        List<PendingHook> batch = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            String source = "src-" + (i % 4);
            batch.add(hook("acme", source, "{\"n\":" + i + ",\"s\":\"" + source + "\",\"u\":\"\u00fc\"}",
                    System.currentTimeMillis(), "a", "b"));
            if (batch.size() == 500) {
                commitAll(batch, bodies); // the commit tells the dispatcher (CommitClaims#committed)
            }
        }
        commitAll(batch, bodies);

        List<Received> gotA = a.awaitRequests(total, Duration.ofMinutes(10));
        List<Received> gotB = b.awaitRequests(total, Duration.ofMinutes(10));
        Eventually.until("the last answers recorded", Duration.ofMinutes(2),
                () -> store.deliveries().counts("a", 0).pending() == 0 && store.deliveries().counts("b", 0).pending() == 0);

        StandardWebhooksCheck check = new StandardWebhooksCheck(SECRET, 3600);
        long nowSeconds = System.currentTimeMillis() / 1000;
        for (HookReceiver r : List.of(a, b)) {
            List<Received> got = r == a ? gotA : gotB;
            assertThat(r.requestCount()).as("requests, none repeated").isEqualTo(total);
            Set<String> ids = new HashSet<>();
            for (Received req : got) {
                String id = req.header("webhook-id");
                assertThat(ids.add(id)).as("delivered once: " + id).isTrue();
                assertThat(req.body()).as("body of " + id).isEqualTo(bodies.get(id));
                assertThat(req.header("sluice-attempt")).isEqualTo("1");
                assertThat(req.header("content-type")).isEqualTo("application/json");
                assertThat(check.genuine(id, req.header("webhook-timestamp"), req.header("webhook-signature"), req.body(),
                        nowSeconds)).as("signature of " + id).isTrue();
            }
            assertThat(ids).isEqualTo(bodies.keySet());
        }
        assertThat(gotB.get(0).path()).isEqualTo("/in?x=1");
        for (String id : bodies.keySet()) {
            assertThat(store.deliveries().deliveries(id)).extracting(DeliveryRow::state)
                    .containsExactly(DeliveryState.DELIVERED, DeliveryState.DELIVERED);
        }
        assertThat(d.activity().of("a").orElseThrow().deliveredTotal()).isEqualTo(total);
        assertThat(d.activity().of("b").orElseThrow().deliveredTotal()).isEqualTo(total);
        assertThat(a.maxInFlight()).isLessThanOrEqualTo(16);
        assertThat(b.maxInFlight()).isLessThanOrEqualTo(8);
    }

    private void commitAll(List<PendingHook> batch, Map<String, byte[]> bodies) {
        List<CommitResult> results = store.commit(batch);
        for (int i = 0; i < batch.size(); i++) {
            assertThat(results.get(i).status()).isEqualTo(CommitResult.Status.ACCEPTED);
            bodies.put(results.get(i).id(), batch.get(i).body());
        }
        batch.clear();
    }

    // ---------------------------------------------------------------- first attempts at commit

    /**
     * A monotonic clock on real time that runs {@code action} once, from the first reading
     * taken inside a destination's pass ({@code Outlet.select}): the moment a pass
     * has taken its answers off the queue and not yet written them.
     */
    private static final class ClockInsideAPass implements Clock {
        volatile Runnable action;

        @Override
        public long nanoTime() {
            Runnable a = action;
            if (a != null && StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    f -> f.getClassName().equals(Outlet.class.getName()) && f.getMethodName().equals("select")))) {
                action = null;
                a.run();
            }
            return System.nanoTime();
        }
    }

    @Test
    void aCommitsClaimNeverTakesTheSlotOfAnAnswerThePassHasNotWrittenYet() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.defaultAnswer(Answer.hang()); // every attempt stays out until the receiver goes
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 4; // claims at commit take at most 3
        s.rate = Limit.of(10_000, 10_000); // the pass asks the limiter, which reads the clock, for each pick
        ClockInsideAPass passClock = new ClockInsideAPass();
        Dispatcher d = dispatcher(passClock, new SimpleMeterRegistry(), new SplittableRandom(7), Duration.ofSeconds(5), s);
        d.start();
        for (int i = 0; i < 4; i++) {
            commit("acme", "gh", "{\"i\":" + i + "}", "app");
        }
        r.awaitInFlight(4, WAIT); // three claimed at their commits, the fourth sent by a pass: every slot out
        List<Long> claims = new ArrayList<>();
        java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
        passClock.action = () -> { // as a commit on another thread would, while the pass holds four unwritten answers
            claims.add(d.commitClaims().claim("app", wall.getAsLong()));
            ran.countDown();
        };
        commit("acme", "gh", "{\"i\":4}", "app"); // no slot: due now, for the pass that takes the answers to pick
        r.stop(); // the four connections close at once: four answers (retries) queued together
        assertThat(ran.await(60, TimeUnit.SECONDS)).as("a pass picked a row after the answers came").isTrue();

        assertThat(claims).as("four outcomes unwritten: no slot for a claim (it would make five a crash could re-send)")
                .containsExactly(-1L);
        assertThat(d.awaitIdle(WAIT)).isTrue();
    }

    @Test
    void firstAttemptsStartAtTheirCommitOnlyInTheSlotsNotKeptForTheScan() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.defaultAnswer(Answer.hang()); // every attempt stays out: the slots fill and stay full
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 4; // a quarter, one slot, is kept for the due scan
        Dispatcher d = dispatcher(s);
        d.start();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(commit("acme", "gh", "{\"i\":" + i + "}", "app"));
        }

        assertThat(d.startedAtCommit()).isEqualTo(3);
        r.awaitInFlight(4, WAIT); // the fourth slot: the driver's pass, from the scan
        for (String id : ids.subList(0, 3)) { // written claimed by the commit itself, until the attempt's timeout
            assertThat(store.deliveries().deliveries(id)).singleElement().satisfies(row -> {
                assertThat(row.state()).isEqualTo(DeliveryState.PENDING);
                assertThat(row.attempts()).isZero();
                assertThat(row.nextAttemptAtMillis()).isEqualTo(T0 + s.timeoutMs + Dispatcher.CLAIM_SLACK_MS);
            });
        }
        assertThat(r.received()).extracting(x -> x.header("webhook-id")).containsAll(ids.subList(0, 3));
        assertThat(d.activity().of("app").orElseThrow().inFlight()).isEqualTo(4);
        assertThat(r.maxInFlight()).isEqualTo(4);
    }

    @Test
    void aCommitThatFailsGivesBackTheSlotsItsClaimsTook() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.defaultAnswer(Answer.hang());
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 4;
        Dispatcher d = dispatcher(s);
        d.start();
        org.sluice.edge.store.rocks.StoreFaults.failCommitWrites(store, true);
        for (int i = 0; i < 5; i++) {
            int n = i;
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> commit("acme", "gh", "{\"f\":" + n + "}", "app"))
                    .isInstanceOf(org.sluice.edge.store.HookStoreException.class);
        }
        assertThat(d.activity().of("app").orElseThrow().inFlight()).as("no slot held by a hook that was never stored").isZero();
        org.sluice.edge.store.rocks.StoreFaults.failCommitWrites(store, false);
        for (int i = 0; i < 3; i++) {
            commit("acme", "gh", "{\"i\":" + i + "}", "app");
        }
        assertThat(d.startedAtCommit()).isEqualTo(3);
        r.awaitInFlight(3, WAIT);
        assertThat(r.received()).extracting(Received::bodyText).containsExactlyInAnyOrder("{\"i\":0}", "{\"i\":1}",
                "{\"i\":2}");
    }

    @Test
    void pausedAndFifoDestinationsTakeNothingAtCommit() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Spec paused = new Spec("paused", r.uri("/p"));
        Spec fifo = new Spec("fifo", r.uri("/f"));
        fifo.ordering = Ordering.FIFO;
        Dispatcher d = dispatcher(paused, fifo);
        store.deliveries().setPaused("paused", true, wall.getAsLong());
        d.start();
        String id = commit("acme", "gh", "{}", "paused", "fifo");

        assertThat(d.startedAtCommit()).isZero();
        r.awaitRequests(1, WAIT); // fifo: sent by the driver's pass, in commit order
        assertThat(r.received()).singleElement().extracting(Received::path).isEqualTo("/f");
        store.deliveries().setPaused("paused", false, wall.getAsLong());
        d.pausedChanged("paused");
        r.awaitRequests(2, WAIT);
        assertThat(r.received()).extracting(x -> x.header("webhook-id")).containsExactly(id, id);
        assertThat(d.startedAtCommit()).isZero();
    }

    @Test
    void aCommitTellsTheDriverOnceAndOnlyWhenItLeftRowsForAPass() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Spec app = new Spec("app", r.uri("/a"));
        Spec fifo = new Spec("fifo", r.uri("/f"));
        fifo.ordering = Ordering.FIFO; // never claimed at commit: its rows are the pass's
        Dispatcher d = dispatcher(app, fifo);
        d.start();

        commit("acme", "gh", "{\"n\":1}", "app");
        assertThat(d.startedAtCommit()).as("claimed and started at its commit").isEqualTo(1);
        assertThat(d.commitsTold()).as("nothing left for a pass: the driver is not told").isZero();

        commit("acme", "gh", "{\"n\":2}", "app", "fifo");
        assertThat(d.startedAtCommit()).isEqualTo(2);
        assertThat(d.commitsTold()).as("one word per commit, for the fifo row it left").isEqualTo(1);

        r.awaitRequests(3, WAIT);
        assertThat(r.received()).extracting(Received::path).containsExactlyInAnyOrder("/a", "/a", "/f");
        assertThat(d.awaitIdle(WAIT)).isTrue();
    }

    // ---------------------------------------------------------------- retry schedule

    @Test
    void threeTimes503ThenDeliveredAtAttemptFourEachWaitWithinItsJitterWindow() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(503), Answer.status(503), Answer.status(503));
        Spec s = new Spec("app", r.uri("/h"));
        s.retry = RetryPolicy.of("destinations.app", 1000, 60_000, 20, 259_200, RetryPolicy.DEFAULT_PERMANENT_STATUSES);
        Dispatcher d = dispatcher(s);
        String id = commit("acme", "gh", "{}", "app");

        assertThat(pumpAndSettle(d)).isEqualTo(1);
        for (int n = 1; n <= 3; n++) {
            long attemptAt = wall.getAsLong();
            DeliveryRow after = row(id, "app");
            assertThat(after.attempts()).isEqualTo(n);
            assertThat(after.lastStatus()).isEqualTo(503);
            long high = s.retry.backoff(n);
            long low = high - high / 2;
            assertThat(after.nextAttemptAtMillis() - attemptAt).as("wait after attempt " + n).isBetween(low, high);

            advanceMillis(low - 1);
            assertThat(pumpAndSettle(d)).as("no attempt before the window of attempt " + (n + 1)).isZero();
            assertThat(r.requestCount()).isEqualTo(n);
            advanceMillis(high - (low - 1));
            assertThat(pumpAndSettle(d)).as("attempt " + (n + 1) + " by the end of its window").isEqualTo(1);
        }
        DeliveryRow done = row(id, "app");
        assertThat(done.state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(done.attempts()).isEqualTo(4);
        assertThat(r.received()).extracting(q -> q.header("sluice-attempt")).containsExactly("1", "2", "3", "4");
        assertThat(r.received()).extracting(q -> q.header("webhook-id")).containsOnly(id);
        assertThat(d.activity().of("app").orElseThrow()).isEqualTo(new DestinationActivity(0, false, 1, 3));
    }

    @Test
    void retryAfterSevenSecondsOn429HoldsTheNextAttemptUntilThenAndTheDriverParksUntilThen() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(429).withHeader("Retry-After", "7"));
        Dispatcher d = dispatcher(new Spec("app", r.uri("/h")));
        String id = commit("acme", "gh", "{}", "app");

        assertThat(pumpAndSettle(d)).isEqualTo(1);
        assertThat(row(id, "app").nextAttemptAtMillis()).isEqualTo(wall.getAsLong() + 7000);
        assertThat(d.pump()).isZero();
        assertThat(d.nextWaitNanos()).as("the scan stops at now; the retry's own time wakes the driver")
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(7000));
        advanceMillis(6999);
        assertThat(pumpAndSettle(d)).isZero();
        assertThat(d.nextWaitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(r.requestCount()).isEqualTo(1);
        advanceMillis(1);
        assertThat(pumpAndSettle(d)).isEqualTo(1);
        assertThat(row(id, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(d.pump()).isZero();
        assertThat(d.nextWaitNanos()).as("nothing known to come due: park until woken or the longest park")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void status410IsDeadAtOnceAndListedAsADeadLetter() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(410));
        Dispatcher d = dispatcher(new Spec("app", r.uri("/h")));
        String id = commit("acme", "gh", "{}", "app");

        assertThat(pumpAndSettle(d)).isEqualTo(1);
        DeliveryRow dead = row(id, "app");
        assertThat(dead.state()).isEqualTo(DeliveryState.DEAD);
        assertThat(dead.deadReason()).isEqualTo(DeadReason.PERMANENT_STATUS.code());
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastStatus()).isEqualTo(410);
        assertThat(store.deliveries().deadLetters("app", null, 10).rows()).extracting(DeliveryRow::hookId)
                .containsExactly(id);
        advanceMillis(3_600_000);
        assertThat(pumpAndSettle(d)).isZero();
        assertThat(r.requestCount()).isEqualTo(1);
    }

    @Test
    void hookOlderThanMaxAgeIsDeadWithoutAnAttempt() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Spec s = new Spec("app", r.uri("/h"));
        s.retry = RetryPolicy.of("destinations.app", 1000, 60_000, 20, 60, RetryPolicy.DEFAULT_PERMANENT_STATUSES);
        Dispatcher d = dispatcher(s);
        CommitResult c = store.commit(List.of(hook("acme", "gh", "{}", wall.getAsLong() - 60_000, "app"))).get(0);

        assertThat(pumpAndSettle(d)).isZero();
        DeliveryRow dead = row(c.id(), "app");
        assertThat(dead.state()).isEqualTo(DeliveryState.DEAD);
        assertThat(dead.deadReason()).isEqualTo(DeadReason.MAX_AGE.code());
        assertThat(dead.attempts()).isZero();
        assertThat(r.requestCount()).isZero();
    }

    // ---------------------------------------------------------------- concurrency and pacing

    @Test
    void maxInFlightIsNeverExceeded() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.defaultAnswer(Answer.status(200).withDelay(Duration.ofMillis(50)));
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 3;
        Dispatcher d = dispatcher(s);
        for (int i = 0; i < 30; i++) {
            commit("acme", "gh", "{\"i\":" + i + "}", "app");
        }

        assertThat(d.pump()).isEqualTo(3);
        assertThat(d.pump()).as("no free slot while three are out").isZero();
        assertThat(d.awaitIdle(WAIT)).isTrue();
        assertThat(drain(d)).isEqualTo(27);
        assertThat(r.requestCount()).isEqualTo(30);
        assertThat(r.maxInFlight()).isBetween(1, 3);
        assertThat(store.deliveries().counts("app", wall.getAsLong()).pending()).isZero();
    }

    @Test
    void paceHoldsDeliveredToBurstPlusRateTimesElapsed() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Spec s = new Spec("app", r.uri("/h"));
        s.rate = Limit.of(10, 5);
        s.maxInFlight = 100;
        Dispatcher d = dispatcher(s);
        for (int i = 0; i < 100; i++) {
            commit("acme", "gh", "{\"i\":" + i + "}", "app");
        }

        long startMs = wall.getAsLong();
        for (int step = 0; step <= 30; step++) {
            drain(d);
            double elapsed = (wall.getAsLong() - startMs) / 1000.0;
            assertThat((double) r.requestCount()).as("after %.1f s", elapsed).isLessThanOrEqualTo(5 + 10 * elapsed);
            advanceMillis(100);
        }
        assertThat(r.requestCount()).as("paced, not stopped").isGreaterThan(5).isLessThan(100);
    }

    // ---------------------------------------------------------------- breaker

    @Test
    void breakerOpensAfterFailuresStopsSpendingAttemptsThenOneProbeThenFlow() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.stop();
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 4;
        s.breaker = BreakerSettings.of("destinations.app", 3, 10_000, 60_000);
        Dispatcher d = dispatcher(s);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(commit("acme", "gh", "{\"i\":" + i + "}", "app"));
        }

        assertThat(pumpAndSettle(d)).isEqualTo(4);
        assertThat(attemptsSpent(ids)).isEqualTo(4);
        assertThat(d.activity().of("app").orElseThrow().breakerOpen()).isTrue();
        assertThat(row(ids.get(0), "app").lastError()).isEqualTo("connect refused");

        advanceMillis(5_000); // every failed row is due again, the breaker is still open
        assertThat(pumpAndSettle(d)).isZero();
        assertThat(attemptsSpent(ids)).as("no attempt spent while open").isEqualTo(4);

        r.restart();
        advanceMillis(5_000);
        assertThat(pumpAndSettle(d)).as("one probe").isEqualTo(1);
        assertThat(r.requestCount()).isEqualTo(1);
        assertThat(d.activity().of("app").orElseThrow().breakerOpen()).isFalse();
        drain(d);
        assertThat(r.requestCount()).isEqualTo(8);
        for (String id : ids) {
            assertThat(row(id, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        }
        assertThat(attemptsSpent(ids)).isEqualTo(4 + 8);
    }

    private int attemptsSpent(List<String> ids) {
        return ids.stream().mapToInt(id -> row(id, "app").attempts()).sum();
    }

    // ---------------------------------------------------------------- fifo

    @Test
    void fifoFailingHookHoldsBackLaterHooksOfItsSourceNotOthers() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(500));
        Spec s = new Spec("app", r.uri("/h"));
        s.ordering = Ordering.FIFO;
        Dispatcher d = dispatcher(s);
        String a1 = commit("acme", "gh", "a1", "app");
        assertThat(pumpAndSettle(d)).isEqualTo(1); // a1 fails
        String a2 = commit("acme", "gh", "a2", "app");
        String b1 = commit("acme", "stripe", "b1", "app");
        String a3 = commit("acme", "gh", "a3", "app");
        String b2 = commit("acme", "stripe", "b2", "app");
        String c1 = commit("other", "gh", "c1", "app");

        drain(d);
        assertThat(r.received()).extracting(Received::bodyText).containsExactlyInAnyOrder("a1", "b1", "b2", "c1");
        assertThat(bodiesInOrder(r, "b")).containsExactly("b1", "b2");
        assertThat(row(a2, "app").attempts()).isZero();
        assertThat(row(a3, "app").attempts()).isZero();

        advanceMillis(1_000); // a1's retry is due
        drain(d);
        assertThat(bodiesInOrder(r, "a")).containsExactly("a1", "a1", "a2", "a3");
        for (String id : List.of(a1, a2, a3, b1, b2, c1)) {
            assertThat(row(id, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        }
    }

    @Test
    void fifoOrderIsRebuiltFromTheLedgerAfterARestart() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(500));
        Spec s = new Spec("app", r.uri("/h"));
        s.ordering = Ordering.FIFO;
        Dispatcher first = dispatcher(s);
        String a1 = commit("acme", "gh", "a1", "app");
        assertThat(pumpAndSettle(first)).isEqualTo(1); // a1 fails, due again within a second
        first.close();
        String a2 = commit("acme", "gh", "a2", "app");

        Dispatcher again = dispatcher(s); // knows nothing but the ledger
        assertThat(drain(again)).as("a2 waits behind a1").isZero();
        assertThat(row(a2, "app").attempts()).isZero();
        advanceMillis(1_000);
        drain(again);
        assertThat(bodiesInOrder(r, "a")).containsExactly("a1", "a1", "a2");
        assertThat(row(a1, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(row(a2, "app").state()).isEqualTo(DeliveryState.DELIVERED);
    }

    private static List<String> bodiesInOrder(HookReceiver r, String prefix) {
        return r.received().stream().map(Received::bodyText).filter(b -> b.startsWith(prefix)).toList();
    }

    // ---------------------------------------------------------------- pause, close

    @Test
    void pausedDestinationSendsNothingAndSpendsNoAttemptUntilResumed() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Dispatcher d = dispatcher(new Spec("app", r.uri("/h")), new Spec("other", r.uri("/o")));
        store.deliveries().setPaused("app", true, wall.getAsLong());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(commit("acme", "gh", "{\"i\":" + i + "}", "app"));
        }
        String other = commit("acme", "gh", "{}", "other");

        assertThat(drain(d)).as("only the other destination").isEqualTo(1);
        advanceMillis(60_000);
        assertThat(drain(d)).isZero();
        assertThat(r.received()).extracting(Received::path).containsExactly("/o");
        assertThat(attemptsSpent(ids)).isZero();
        assertThat(row(other, "other").state()).isEqualTo(DeliveryState.DELIVERED);

        store.deliveries().setPaused("app", false, wall.getAsLong());
        d.pausedChanged("app");
        assertThat(drain(d)).isEqualTo(3);
        for (String id : ids) {
            assertThat(row(id, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        }
    }

    @Test
    void rowsWhoseAttemptIsOutAreSteppedOverByTheScanWithoutTakingItsReadAhead() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        Answer[] hung = new Answer[19];
        Arrays.fill(hung, Answer.hang());
        r.plan(hung).defaultAnswer(Answer.status(200));
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 20;
        Dispatcher d = dispatcher(s);
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 19; i++) {
            held.add(commit("acme", "gh", "{\"i\":" + i + "}", "app"));
        }
        assertThat(d.pump()).isEqualTo(19);
        r.awaitInFlight(19, WAIT);
        for (String id : held) {
            DeliveryRow row = row(id, "app");
            assertThat(row.nextAttemptAtMillis()).as("held in memory, not claimed in the store").isEqualTo(row.scheduledAtMillis());
        }

        // one slot free and a read-ahead of 16: the 19 rows due before it, all out, must not fill the scan
        String last = commit("acme", "gh", "{\"i\":19}", "app");
        assertThat(d.pump()).isEqualTo(1);
        r.awaitRequests(20, WAIT);
        assertThat(d.pump()).as("nothing is read twice while its attempt is out").isZero();
        assertThat(r.received()).extracting(x -> x.header("webhook-id")).filteredOn(last::equals).hasSize(1);
        assertThat(r.requestCount()).isEqualTo(20);
    }

    @Test
    void rowsLetGoWithTheirAnswersUnrecordedAreFoundAgainAfterTheScanMovedPastThem() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.hang()).defaultAnswer(Answer.status(200));
        Spec s = new Spec("app", r.uri("/h"));
        s.maxInFlight = 2;
        s.timeoutMs = 500; // real time: the hung attempt ends on the client's timer
        Dispatcher d = dispatcher(s);
        String first = commit("acme", "gh", "1", "app");
        assertThat(d.pump()).isEqualTo(1);
        r.awaitInFlight(1, WAIT);

        advanceMillis(1_000);
        String second = commit("acme", "gh", "2", "app");
        org.sluice.edge.store.rocks.StoreFaults.failWrites(store, true); // no answer from now on is recorded
        assertThat(d.pump()).as("the scan steps over the first, out, and takes the second").isEqualTo(1);
        assertThat(d.awaitIdle(WAIT)).as("both answers (the first's timeout, the second's 200) handled").isTrue();
        org.sluice.edge.store.rocks.StoreFaults.failWrites(store, false);
        assertThat(r.requestCount()).isEqualTo(2);
        assertThat(row(first, "app").attempts()).isZero();
        assertThat(row(second, "app").attempts()).isZero();

        // the second pass's scan raised the due floor past the first; letting each go lowered it again
        assertThat(pumpAndSettle(d)).isEqualTo(2);
        assertThat(row(first, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(row(second, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(r.received()).extracting(x -> x.header("webhook-id")).containsExactlyInAnyOrder(first, second, first, second);
    }

    @Test
    void closeWithAttemptsInFlightLeavesTheirRowsPendingAndTheyComeDueAgain() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.defaultAnswer(Answer.hang());
        Spec s = new Spec("app", r.uri("/h"));
        s.timeoutMs = 15_000;
        Dispatcher d = dispatcher(clock, new SimpleMeterRegistry(), new SplittableRandom(3), Duration.ofMillis(200), s);
        String h1 = commit("acme", "gh", "1", "app");
        String h2 = commit("acme", "gh", "2", "app");

        assertThat(d.pump()).isEqualTo(2);
        r.awaitInFlight(2, WAIT);
        d.close();
        for (String id : List.of(h1, h2)) {
            DeliveryRow left = row(id, "app");
            assertThat(left.state()).isEqualTo(DeliveryState.PENDING);
            assertThat(left.attempts()).isZero();
            assertThat(left.nextAttemptAtMillis()).as("held in memory while out, never claimed in the store")
                    .isEqualTo(left.scheduledAtMillis());
        }

        r.defaultAnswer(Answer.status(200));
        Dispatcher again = dispatcher(s); // as after a restart
        assertThat(pumpAndSettle(again)).as("an attempt out at the stop is made again at once").isEqualTo(2);
        assertThat(row(h1, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(row(h2, "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(r.received()).extracting(x -> x.header("webhook-id"))
                .as("the attempt lost with the stop and its repeat, under one id").containsExactlyInAnyOrder(h1, h1, h2, h2);
    }

    // ---------------------------------------------------------------- meters

    @Test
    void metersCarryTheContractNamesLabelledByDestination() throws Exception {
        openStore();
        HookReceiver r = receiver(clock);
        r.plan(Answer.status(500));
        PrometheusMeterRegistry prom = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Dispatcher d = dispatcher(clock, prom, new SplittableRandom(5), Duration.ofSeconds(5), new Spec("app", r.uri("/h")));
        commit("acme", "gh", "{}", "app");
        commit("acme", "gh", "{}", "app");
        pumpAndSettle(d);

        String text = prom.scrape();
        assertThat(text)
                .contains("sluice_delivery_attempts_total{destination=\"app\",outcome=\"delivered\"} 1.0")
                .contains("sluice_delivery_attempts_total{destination=\"app\",outcome=\"retry\"} 1.0")
                .contains("sluice_delivery_attempts_total{destination=\"app\",outcome=\"dead\"} 0.0")
                .contains("sluice_delivery_latency_seconds_count{destination=\"app\"} 2")
                .contains("sluice_delivery_lag_seconds_count{destination=\"app\"} 1")
                .contains("sluice_delivery_pending{destination=\"app\"} 1.0")
                .contains("sluice_delivery_dead{destination=\"app\"} 0.0")
                .contains("sluice_delivery_oldest_pending_seconds{destination=\"app\"}")
                .contains("sluice_delivery_breaker_open{destination=\"app\"} 0.0");
    }
}

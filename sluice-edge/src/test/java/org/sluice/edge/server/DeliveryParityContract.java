package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * The black-box delivery contract every store kind passes (issue 45): one body of
 * assertions, run by a subclass per kind and per fleet size, so that {@code store.kind:
 * kafka} is held to exactly what {@code rocksdb} does. Real parts only: Sluice nodes on
 * real sockets and the system clock (the log's follower commits on a period of real time),
 * servers in this JVM or {@code sluice serve} in child JVMs as the subclass starts them, a
 * real HTTP receiver, and whatever the subclass starts for its store (brokers, Redis). The
 * nodes are only ever seen from outside: ingest, the admin API, {@code /metrics}.
 *
 * <p>Each node's destination {@code app} points at its own path of the one receiver,
 * {@code /in/<node id>}, so a request tells which node sent it. Hooks go to the nodes in
 * turn. Times are only ever lower bounds read from the receiver's arrival stamps (a wait
 * the server must not cut short), never speeds; the top of a retry's jitter window is read
 * from the node's own stamps on the delivery ({@code next_attempt_at} minus {@code
 * updated_at}), exact arithmetic with no wall-clock bound.
 */
abstract class DeliveryParityContract {

    static final ObjectMapper JSON = new ObjectMapper();
    /** Several (tenant, source) keys, so that the log's partitions, and the nodes, share the hooks. */
    static final int SOURCES = 8;
    /** Generous: rebalances and restarts on a loaded machine. */
    static final Duration WAIT = Duration.ofSeconds(90);
    /**
     * How long the receiver holds an answer the retries case reads a delivery behind: ample
     * for the admin API's answer (one read of the log by id), so the row cannot move meanwhile.
     */
    static final Duration HELD = Duration.ofSeconds(5);
    private static final AtomicInteger CASES = new AtomicInteger();

    @TempDir
    Path dir;

    /** Nodes in a case: 1, or 2 sharing one store. */
    abstract int nodeCount();

    /**
     * The top-level sections that choose the store (and what it needs, such as the fleet's
     * Redis), for a case whose topics start with {@code prefix}; empty for the default store.
     */
    abstract String storeSections(String prefix);

    /** Waits until every node of a just-started fleet, its topics under {@code prefix}, is ready to deliver its share. */
    void awaitReady(List<Node> nodes, String prefix) {
        Eventually.until("every node ready", WAIT,
                () -> nodes.stream().allMatch(n -> Http.get(n.ingest(), "/readyz").status() == 200));
    }

    /** Starts node {@code id} on {@code yaml}: a server in this JVM on the system clock, unless a subclass says otherwise. */
    Node startNode(String id, String yaml) {
        TestEdge edge = TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()));
        InetSocketAddress admin = new InetSocketAddress(InetAddress.getLoopbackAddress(), edge.server.adminAddress().getPort());
        return new Node(id, edge.address, admin, edge::close);
    }

    /** A running node, seen from outside: where it listens, and how it stops (gracefully). */
    record Node(String id, InetSocketAddress ingest, InetSocketAddress admin, Runnable stop) {
    }

    // ------------------------------------------------------------------ the scenarios

    @Test
    void everyHookIsDeliveredExactlyOnceWhenTheReceiverIsHealthy() throws Exception {
        try (Fleet f = fleet("")) {
            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 40; i++) {
                accepted.add(f.accept(i));
            }
            Eventually.until("every hook delivered", WAIT, () -> deliveredIds(f.receiver).equals(accepted));
            Eventually.until("nothing pending", WAIT, () -> f.sum("sluice_delivery_pending", "") == 0);
            assertThat(f.receiver.requestCount()).as("each hook reached the receiver once").isEqualTo(accepted.size());
        }
    }

    @Test
    void aFailedAttemptIsRetriedAfterItsBackoffUntilDelivered() throws Exception {
        RetryPolicy policy = RetryPolicy.of("destinations.app", 400, 1600, RetryPolicy.DEFAULT_MAX_ATTEMPTS,
                RetryPolicy.DEFAULT_MAX_AGE_SECONDS, RetryPolicy.DEFAULT_PERMANENT_STATUSES);
        try (Fleet f = fleet("retry: {initial_ms: 400, max_ms: 1600}")) {
            // attempts 2 and 3 are answered HELD after they arrive: while one is out, the row stands as the attempt before left it
            f.receiver.plan(HookReceiver.Answer.status(503), HookReceiver.Answer.status(503).withDelay(HELD),
                    HookReceiver.Answer.status(200).withDelay(HELD));
            String id = f.accept(0);
            for (int failed = 1; failed <= 2; failed++) {
                int out = failed + 1;
                Eventually.until("attempt " + out + " out", WAIT, () -> requestsFor(f.receiver, id).size() == out);
                JsonNode row = f.heldDelivery(id);
                assertThat(row.get("state").asText()).as("after attempt %d", failed).isEqualTo("pending");
                assertThat(row.get("attempts").asInt()).as("after attempt %d", failed).isEqualTo(failed);
                assertThat(row.get("last_status").asInt()).as("after attempt %d", failed).isEqualTo(503);
                // the wait the node drew, on its own stamps: next attempt time minus the failed attempt's answer
                long drawn = Instant.parse(row.get("next_attempt_at").asText()).toEpochMilli()
                        - Instant.parse(row.get("updated_at").asText()).toEpochMilli();
                long backoff = policy.backoff(failed);
                assertThat(drawn).as("the wait after attempt %d, in the jitter window of its %d ms backoff", failed, backoff)
                        .isBetween(backoff - backoff / 2, backoff);
            }
            Eventually.until("three attempts", WAIT, () -> requestsFor(f.receiver, id).size() == 3);
            Eventually.until("nothing pending", WAIT, () -> f.sum("sluice_delivery_pending", "") == 0);
            List<HookReceiver.Received> attempts = requestsFor(f.receiver, id);
            assertThat(attempts).as("the same node tries again").extracting(HookReceiver.Received::path).containsOnly(attempts.get(0).path());
            // the wait after attempt n is at least ceil(backoff(n) / 2), counted from its answer (attempt 2's came HELD after it)
            assertThat(gapMillis(attempts.get(0), attempts.get(1))).as("after attempt 1").isGreaterThanOrEqualTo(200);
            assertThat(gapMillis(attempts.get(1), attempts.get(2))).as("after attempt 2")
                    .isGreaterThanOrEqualTo(HELD.toMillis() + 400);
            assertThat(f.sum("sluice_delivery_attempts_total", "outcome=\"retry\"")).isEqualTo(2);
            assertThat(f.sum("sluice_delivery_attempts_total", "outcome=\"delivered\"")).isEqualTo(1);
            assertThat(f.receiver.requestCount()).isEqualTo(3);
        }
    }

    @Test
    void retryAfterHoldsTheNextAttemptUntilItsTime() throws Exception {
        try (Fleet f = fleet("retry: {initial_ms: 100, max_ms: 10000}")) {
            f.receiver.plan(HookReceiver.Answer.status(429).withHeader("Retry-After", "2"));
            String id = f.accept(0);
            Eventually.until("two attempts", WAIT, () -> requestsFor(f.receiver, id).size() == 2);
            List<HookReceiver.Received> attempts = requestsFor(f.receiver, id);
            assertThat(gapMillis(attempts.get(0), attempts.get(1))).as("Retry-After: 2 over a 100 ms backoff")
                    .isGreaterThanOrEqualTo(2000);
            Eventually.until("nothing pending", WAIT, () -> f.sum("sluice_delivery_pending", "") == 0);
            assertThat(f.receiver.requestCount()).isEqualTo(2);
        }
    }

    @Test
    void a410IsDeadAtOnceListedOnEveryNodeAndRedeliveredFromAnyNode() throws Exception {
        try (Fleet f = fleet("")) {
            f.receiver.plan(HookReceiver.Answer.status(410));
            String id = f.accept(0);
            for (Node n : f.nodes) {
                Eventually.until("the dead letter listed", WAIT, () -> f.deadLetterIds(n).contains(id));
                JsonNode letter = f.json(n, "GET", "/v1/dead-letters?destination=app", null).get("dead_letters").get(0);
                assertThat(letter.get("id").asText()).isEqualTo(id);
                assertThat(letter.get("reason").asText()).isEqualTo("permanent_status");
                assertThat(letter.get("last_status").asInt()).isEqualTo(410);
                assertThat(letter.get("attempts").asInt()).isEqualTo(1);
                assertThat(f.destination(n).get("dead").asLong()).as("the dead letters, as a node lists them").isEqualTo(1);
                // the hook's delivery, as any node shows it: its own row, or the fleet's dead letter
                JsonNode dead = f.json(n, "GET", "/v1/hooks/" + id, null).get("deliveries");
                assertThat(dead).as("%s's deliveries of %s", n.id(), id).hasSize(1);
                assertThat(dead.get(0).get("destination").asText()).isEqualTo("app");
                assertThat(dead.get(0).get("state").asText()).isEqualTo("dead");
                assertThat(dead.get(0).get("dead_reason").asText()).isEqualTo("permanent_status");
                assertThat(dead.get(0).get("last_status").asInt()).isEqualTo(410);
                assertThat(dead.get(0).get("attempts").asInt()).isEqualTo(1);
                assertThat(dead.get(0).get("next_attempt_at").isNull()).isTrue();
            }
            assertThat(requestsFor(f.receiver, id)).as("no retry after a permanent status").hasSize(1);

            Node last = f.nodes.get(f.nodes.size() - 1);
            Http.Response redelivered = f.admin(last, "POST", "/v1/hooks/" + id + "/redeliver", "");
            assertThat(redelivered.status()).as(redelivered.body()).isEqualTo(202);
            assertThat(JSON.readTree(redelivered.body()).get("scheduled").asInt()).isEqualTo(1);
            Eventually.until("the redelivery delivered", WAIT, () -> requestsFor(f.receiver, id).size() == 2);
            for (Node n : f.nodes) {
                Eventually.until("the dead letter gone", WAIT, () -> f.deadLetterIds(n).isEmpty());
                Eventually.until("no dead letter counted", WAIT, () -> f.destination(n).get("dead").asLong() == 0);
            }
            assertThat(f.receiver.requestCount()).isEqualTo(2);
        }
    }

    @Test
    void pacingHoldsDeliveriesToBurstPlusRateTimesElapsed() throws Exception {
        int rate = 10;
        int burst = 5;
        try (Fleet f = fleet("rate: {rate: " + rate + ", burst: " + burst + "}")) {
            f.pause(f.nodes.get(0));
            for (int i = 0; i < 40; i++) {
                f.accept(i);
            }
            assertThat(f.receiver.requestCount()).as("nothing sent while paused").isZero();
            long start = System.nanoTime(); // before the resume: no permit is granted earlier
            f.resume(f.nodes.get(f.nodes.size() - 1));
            Eventually.until("25 hooks received", WAIT, () -> f.receiver.requestCount() >= 25);
            int count = f.receiver.requestCount();
            double elapsed = (System.nanoTime() - start) / (double) TimeUnit.SECONDS.toNanos(1);
            assertThat(count).as("received in %.2f s at rate %d, burst %d", elapsed, rate, burst)
                    .isLessThanOrEqualTo(burst + (int) Math.ceil(rate * elapsed));
            Eventually.until("every hook delivered", WAIT, () -> f.receiver.requestCount() == 40
                    && f.sum("sluice_delivery_pending", "") == 0);
        }
    }

    @Test
    void maxInFlightIsNeverExceeded() throws Exception {
        int maxInFlight = 2;
        try (Fleet f = fleet("max_in_flight: " + maxInFlight)) {
            f.receiver.defaultAnswer(HookReceiver.Answer.status(200).withDelay(Duration.ofMillis(150)));
            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 24; i++) {
                accepted.add(f.accept(i));
            }
            Eventually.until("every hook delivered", WAIT, () -> deliveredIds(f.receiver).equals(accepted));
            assertThat(f.receiver.maxInFlight()).as("max_in_flight %d per node, %d nodes", maxInFlight, f.nodes.size())
                    .isLessThanOrEqualTo(maxInFlight * f.nodes.size());
            assertThat(f.receiver.requestCount()).isEqualTo(accepted.size());
        }
    }

    /**
     * Every node's breaker opens on three failures in a row and then spends no attempt until
     * {@code open_ms} has passed (one attempt at a time, so a node's requests are in order);
     * the receiver healthy again, the probe closes it and every hook is delivered.
     */
    @Test
    void theBreakerOpensOnFailuresHoldsAttemptsForOpenMsThenAProbeClosesIt() throws Exception {
        long openMs = 1500;
        try (Fleet f = fleet("max_in_flight: 1, retry: {initial_ms: 4000, max_ms: 4000},"
                + " breaker: {failures: 3, open_ms: " + openMs + ", max_open_ms: " + openMs + "}")) {
            f.receiver.defaultAnswer(HookReceiver.Answer.status(503));
            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 4 * SOURCES; i++) {
                accepted.add(f.accept(i));
            }
            Eventually.until("every node's breaker open", WAIT,
                    () -> f.nodes.stream().allMatch(n -> f.gauge(n, "sluice_delivery_breaker_open", "") == 1));
            for (Node n : f.nodes) {
                Eventually.until("an attempt after the breaker opened", WAIT, () -> f.sentBy(n).size() >= 4);
                List<HookReceiver.Received> sent = f.sentBy(n);
                assertThat(gapMillis(sent.get(2), sent.get(3))).as("node %s: the first attempt after three failures",
                        n.id()).isGreaterThanOrEqualTo(openMs);
            }
            f.receiver.defaultAnswer(HookReceiver.Answer.status(200));
            Eventually.until("every hook delivered", WAIT,
                    () -> f.sum("sluice_delivery_attempts_total", "outcome=\"delivered\"") == accepted.size());
            for (Node n : f.nodes) {
                Eventually.until("the breaker closed", WAIT, () -> f.gauge(n, "sluice_delivery_breaker_open", "") == 0);
                assertThat(f.destination(n).get("state").asText()).isEqualTo("ok");
            }
            assertThat(deliveredIds(f.receiver)).isEqualTo(accepted);
        }
    }

    /**
     * {@code fifo}: while the first hook of one source fails, the later hooks of that source
     * wait and every other source's hooks are delivered; once it is delivered, each source's
     * hooks reach the receiver in acceptance order (a repeat only ever follows its own first copy).
     */
    @Test
    void fifoHoldsALaterHookBehindAFailingOneOfItsSourceAndNoOtherSource() throws Exception {
        try (Fleet f = fleet("ordering: fifo, retry: {initial_ms: 300, max_ms: 600}")) {
            f.receiver.answerWhen(r -> r.bodyText().equals("{\"n\":0}"), HookReceiver.Answer.status(503));
            List<String> order = new ArrayList<>();
            for (int i = 0; i < 4 * SOURCES; i++) {
                order.add(f.accept(i));
            }
            Set<String> others = new TreeSet<>();
            for (int i = 0; i < order.size(); i++) {
                if (i % SOURCES != 0) {
                    others.add(order.get(i));
                }
            }
            Eventually.until("every other source's hooks delivered, the failing one tried again", WAIT,
                    () -> deliveredIds(f.receiver).containsAll(others) && requestsFor(f.receiver, order.get(0)).size() >= 2);
            for (int i = SOURCES; i < order.size(); i += SOURCES) {
                assertThat(requestsFor(f.receiver, order.get(i))).as("hook %d waits behind hook 0", i).isEmpty();
            }
            f.receiver.clearRules();
            Eventually.until("every hook delivered", WAIT, () -> deliveredIds(f.receiver).containsAll(order));
            Map<Integer, List<String>> firstSeen = new HashMap<>();
            for (String id : new LinkedHashSet<>(f.receiver.received().stream().map(r -> r.header("webhook-id")).toList())) {
                int n = order.indexOf(id);
                firstSeen.computeIfAbsent(n % SOURCES, k -> new ArrayList<>()).add(id);
            }
            for (int s = 0; s < SOURCES; s++) {
                List<String> accepted = new ArrayList<>();
                for (int i = s; i < order.size(); i += SOURCES) {
                    accepted.add(order.get(i));
                }
                assertThat(firstSeen.get(s)).as("source s%d in acceptance order", s).isEqualTo(accepted);
            }
        }
    }

    /** A dead-only replay over a time range, started on the last node, redelivers exactly the range's dead letters. */
    @Test
    void aReplayOfARangeRedeliversItsDeadLetters() throws Exception {
        try (Fleet f = fleet("")) {
            f.receiver.answerWhen(r -> r.bodyText().matches("\\{\"n\":[135]\\}"), HookReceiver.Answer.status(410));
            Instant from = Instant.now().minusSeconds(1);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ids.add(f.accept(i));
            }
            Set<String> dead = Set.of(ids.get(1), ids.get(3), ids.get(5));
            Eventually.until("every hook answered", WAIT, () -> deliveredIds(f.receiver).containsAll(ids));
            for (Node n : f.nodes) {
                Eventually.until("the dead letters listed", WAIT, () -> f.deadLetterIds(n).equals(dead));
            }
            f.receiver.clearRules();
            Node last = f.nodes.get(f.nodes.size() - 1);
            String body = "{\"from\":\"" + from + "\",\"to\":\"" + Instant.now().plusSeconds(60)
                    + "\",\"dead_only\":true,\"rate\":100}";
            Http.Response started = f.admin(last, "POST", "/v1/destinations/app/replay", body);
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            assertThat(JSON.readTree(started.body()).get("scheduled").asInt()).isEqualTo(3);
            String replay = JSON.readTree(started.body()).get("replay").asText();
            Eventually.until("the replay done", WAIT,
                    () -> f.json(last, "GET", "/v1/replays/" + replay, null).get("state").asText().equals("done"));
            Eventually.until("the dead letters delivered again", WAIT,
                    () -> dead.stream().allMatch(id -> requestsFor(f.receiver, id).size() == 2));
            for (Node n : f.nodes) {
                Eventually.until("no dead letter left", WAIT, () -> f.deadLetterIds(n).isEmpty());
            }
            for (String id : ids) {
                assertThat(requestsFor(f.receiver, id)).as(id).hasSize(dead.contains(id) ? 2 : 1);
            }
        }
    }

    /** A pause made on one node holds every node, restarts of every node included, until resumed. */
    @Test
    void aPauseHoldsEveryNodeAcrossARestartUntilResumed() throws Exception {
        try (Fleet f = fleet("")) {
            f.pause(f.nodes.get(0));
            f.restart();
            for (Node n : f.nodes) {
                assertThat(f.destination(n).get("state").asText()).as("node %s after its restart", n.id()).isEqualTo("paused");
            }
            Set<String> held = new TreeSet<>();
            for (int i = 0; i < 2 * SOURCES; i++) {
                held.add(f.accept(i));
            }
            Eventually.until("every held hook pending on a node", WAIT,
                    () -> f.sum("sluice_delivery_pending", "") == held.size());
            assertThat(f.receiver.requestCount()).as("nothing sent while paused").isZero();
            f.resume(f.nodes.get(f.nodes.size() - 1));
            Eventually.until("every hook delivered", WAIT, () -> deliveredIds(f.receiver).equals(held));
            assertThat(f.receiver.requestCount()).isEqualTo(held.size());
        }
    }

    /** The delivery metrics count, over the nodes, exactly what the receiver saw. */
    @Test
    void theDeliveryMetricsCountWhatHappened() throws Exception {
        try (Fleet f = fleet("retry: {initial_ms: 200, max_ms: 400}")) {
            f.receiver.answerWhen(r -> r.bodyText().equals("{\"n\":1}"), HookReceiver.Answer.status(410));
            f.receiver.plan(HookReceiver.Answer.status(503));
            String retried = f.accept(0);
            Eventually.until("the first hook delivered on its second attempt", WAIT,
                    () -> requestsFor(f.receiver, retried).size() == 2);
            for (int i = 1; i < 6; i++) {
                f.accept(i);
            }
            Eventually.until("every attempt counted", WAIT, () -> f.sum("sluice_delivery_attempts_total", "") == 7);
            Eventually.until("nothing pending", WAIT, () -> f.sum("sluice_delivery_pending", "") == 0);
            assertThat(f.sum("sluice_delivery_attempts_total", "outcome=\"delivered\"")).isEqualTo(5);
            assertThat(f.sum("sluice_delivery_attempts_total", "outcome=\"retry\"")).isEqualTo(1);
            assertThat(f.sum("sluice_delivery_attempts_total", "outcome=\"dead\"")).isEqualTo(1);
            assertThat(f.sum("sluice_delivery_latency_seconds_count", "")).as("one round trip per attempt").isEqualTo(7);
            assertThat(f.sum("sluice_delivery_lag_seconds_count", "")).as("one lag per delivery").isEqualTo(5);
            assertThat(f.sum("sluice_delivery_oldest_pending_seconds", "")).isZero();
            for (Node n : f.nodes) {
                Eventually.until("the dead letter counted", WAIT, () -> f.destination(n).get("dead").asLong() == 1);
            }
            assertThat(f.receiver.requestCount()).isEqualTo(7);
        }
    }

    /**
     * Past {@code retention.hooks_seconds} a hook with no delivery is gone (404), while a
     * hook whose delivery a pause holds is still found and, resumed, delivered.
     */
    @Test
    void aHookWithAPendingDeliveryStaysDeliverablePastRetention() throws Exception {
        try (Fleet f = fleet("", "retention: {hooks_seconds: 5, dead_seconds: 60}\n")) {
            f.pause(f.nodes.get(0));
            Node first = f.nodes.get(0);
            String pending = f.accept(1);
            String kept = f.accept(first, "keep", 2); // accepted after the held hook
            Http.Response young = f.admin(first, "GET", "/v1/hooks/" + kept, null);
            assertThat(young.status()).as("found while younger than hooks_seconds: %s", young.body()).isEqualTo(200);
            for (Node n : f.nodes) {
                Eventually.until("the later hook with no delivery gone past retention", WAIT,
                        () -> f.admin(n, "GET", "/v1/hooks/" + kept, null).status() == 404);
            }
            for (Node n : f.nodes) {
                Http.Response found = f.admin(n, "GET", "/v1/hooks/" + pending, null);
                assertThat(found.status()).as("node %s: %s", n.id(), found.body()).isEqualTo(200);
            }
            assertThat(f.receiver.requestCount()).isZero();
            f.resume(f.nodes.get(f.nodes.size() - 1));
            Eventually.until("the held hook delivered", WAIT, () -> requestsFor(f.receiver, pending).size() == 1);
            Eventually.until("nothing pending", WAIT, () -> f.sum("sluice_delivery_pending", "") == 0);
            assertThat(f.receiver.requestCount()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ the fleet of a case

    Fleet fleet(String flow) throws Exception {
        return fleet(flow, "");
    }

    /** Nodes whose destination {@code app} has {@code flow} (flow mapping entries), with top-level {@code sections}. */
    Fleet fleet(String flow, String sections) throws Exception {
        return new Fleet("p" + CASES.incrementAndGet(), flow, sections);
    }

    /** The nodes of one case, the receiver they deliver to, and what a test does to them. */
    final class Fleet implements AutoCloseable {

        final HookReceiver receiver = HookReceiver.start();
        final List<Node> nodes = new ArrayList<>();
        private final String prefix;
        private final List<String> yamls = new ArrayList<>();
        private int posted;

        Fleet(String prefix, String flow, String sections) {
            this.prefix = prefix;
            StringBuilder sources = new StringBuilder();
            for (int i = 0; i < SOURCES; i++) {
                sources.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [app]}\n");
            }
            sources.append("  keep: {tenant: t, verify: {scheme: none}}\n");
            for (int i = 0; i < nodeCount(); i++) {
                String node = "n" + i;
                yamls.add("""
                        node: {id: %s, data_dir: "%s"}
                        admin: {listen: "127.0.0.1:0", token: "%s"}
                        http: {listen: "127.0.0.1:0"}
                        %ssources:
                        %sdestinations:
                          app: {url: "%s"%s}
                        %s""".formatted(node, dir.resolve(node), NatsDeliveryTest.TOKEN, sections, sources, receiver.uri("/in/" + node),
                        flow.isEmpty() ? "" : ", " + flow, storeSections(prefix)));
            }
            try {
                start();
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        private void start() {
            for (int i = 0; i < yamls.size(); i++) {
                nodes.add(startNode("n" + i, yamls.get(i)));
            }
            awaitReady(nodes, prefix);
        }

        /** Stops every node, then starts every node again on its data dir. */
        void restart() {
            stopNodes();
            start();
        }

        /** Posts {@code {"n": n}} to source {@code s<n % SOURCES>} of the next node in turn; the hook's id. */
        String accept(int n) throws Exception {
            return accept(nodes.get(posted++ % nodes.size()), "s" + (n % SOURCES), n);
        }

        /** Posts {@code {"n": n}} to {@code /hooks/<source>} of {@code node}; the hook's id, once answered 202. */
        String accept(Node node, String source, int n) throws Exception {
            Http.Response r = Http.post(node.ingest(), "/hooks/" + source, Map.of("Content-Type", "application/json"),
                    ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            return JSON.readTree(r.body()).get("id").asText();
        }

        /** The requests {@code node} sent, in arrival order. */
        List<HookReceiver.Received> sentBy(Node node) {
            String path = "/in/" + node.id();
            return receiver.received().stream().filter(r -> r.path().equals(path)).toList();
        }

        Http.Response admin(Node node, String method, String path, String body) {
            try (Http http = Http.connect(node.admin())) {
                return http.request(method, path, Map.of("Authorization", "Bearer " + NatsDeliveryTest.TOKEN),
                        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        JsonNode json(Node node, String method, String path, String body) {
            Http.Response r = admin(node, method, path, body);
            assertThat(r.status()).as("%s %s: %s", method, path, r.body()).isEqualTo(200);
            try {
                return JSON.readTree(r.body());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /**
         * The hook's one delivery as the node holding it shows it ({@code GET /v1/hooks/{id}}): a
         * node of the default store shows its own (no {@code deliveries_from}); of several kafka
         * nodes, exactly one answers from its working set ({@code this_node}).
         */
        JsonNode heldDelivery(String id) {
            List<JsonNode> held = new ArrayList<>();
            for (Node n : nodes) {
                JsonNode hook = json(n, "GET", "/v1/hooks/" + id, null);
                JsonNode from = hook.get("deliveries_from");
                if (from == null || from.asText().equals("this_node")) {
                    assertThat(hook.get("deliveries")).as("%s's deliveries of %s", n.id(), id).hasSize(1);
                    held.add(hook.get("deliveries").get(0));
                } else {
                    assertThat(from.isNull()).as("%s answers from its working set or not at all: %s", n.id(), hook).isTrue();
                    assertThat(hook.get("deliveries").isNull()).isTrue();
                    assertThat(hook.get("node").asText()).isEqualTo(n.id());
                }
            }
            assertThat(held).as("the nodes holding %s", id).hasSize(1);
            return held.get(0);
        }

        JsonNode destination(Node node) {
            return json(node, "GET", "/v1/destinations", null).get("destinations").get(0);
        }

        /**
         * The hook ids of the dead letters {@code node} lists, or one {@code "answered <status>"}
         * while it answers otherwise than 200 (a kafka node: until it has read the dead letters).
         */
        Set<String> deadLetterIds(Node node) {
            Http.Response r = admin(node, "GET", "/v1/dead-letters?limit=1000", null);
            if (r.status() != 200) {
                return Set.of("answered " + r.status());
            }
            Set<String> ids = new TreeSet<>();
            try {
                JSON.readTree(r.body()).get("dead_letters").forEach(l -> ids.add(l.get("id").asText()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return ids;
        }

        /** Pauses {@code app} through {@code node}'s admin API; returns once every node holds it paused. */
        void pause(Node node) throws Exception {
            assertThat(json(node, "POST", "/v1/destinations/app/pause", "").get("state").asText()).isEqualTo("paused");
            Eventually.until("every node paused", WAIT,
                    () -> nodes.stream().allMatch(n -> destination(n).get("state").asText().equals("paused")));
        }

        void resume(Node node) throws Exception {
            assertThat(json(node, "POST", "/v1/destinations/app/resume", "").get("state").asText()).isEqualTo("ok");
        }

        /** The value of the series of {@code name} for destination app whose labels include {@code label} on one node. */
        double gauge(Node node, String name, String label) {
            double sum = 0;
            for (String line : scrape(node).lines().toList()) {
                if (line.startsWith(name + "{") && line.contains("destination=\"app\"") && line.contains(label)) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).strip());
                }
            }
            return sum;
        }

        /** As {@link #gauge}, summed over the nodes. */
        double sum(String name, String label) {
            double sum = 0;
            for (Node n : nodes) {
                sum += gauge(n, name, label);
            }
            return sum;
        }

        String scrape(Node node) {
            Http.Response r = Http.get(node.admin(), "/metrics");
            assertThat(r.status()).isEqualTo(200);
            return r.body();
        }

        private void stopNodes() {
            for (Node n : nodes) {
                n.stop().run();
            }
            nodes.clear();
        }

        @Override
        public void close() {
            try {
                stopNodes();
            } finally {
                receiver.close();
            }
        }
    }

    // ------------------------------------------------------------------ reading the receiver

    static Set<String> deliveredIds(HookReceiver receiver) {
        Set<String> ids = new TreeSet<>();
        for (HookReceiver.Received r : receiver.received()) {
            ids.add(r.header("webhook-id"));
        }
        return ids;
    }

    static List<HookReceiver.Received> requestsFor(HookReceiver receiver, String id) {
        return receiver.received().stream().filter(r -> id.equals(r.header("webhook-id"))).toList();
    }

    static long gapMillis(HookReceiver.Received earlier, HookReceiver.Received later) {
        return TimeUnit.NANOSECONDS.toMillis(later.arrivedNanos() - earlier.arrivedNanos());
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.telemetry.OtlpReceiver;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * {@code store.kind: kafka} delivering, end to end with real parts: Sluice servers in this
 * JVM on real sockets, a broker of Kafka's KRaft test kit, a real HTTP receiver. One node
 * delivers every hook it answered 202 exactly once; two nodes on one cluster share the
 * log's partitions and deliver every hook exactly once in total, and a pause made on one
 * node's admin API holds the other node's deliveries until it is resumed.
 */
class KafkaStoreDeliveryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Several (tenant, source) keys, so that the log's partitions, and the nodes, share the hooks. */
    private static final int SOURCES = 6;

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    private String yaml(String node, String prefix, HookReceiver receiver) {
        StringBuilder sources = new StringBuilder();
        for (int i = 0; i < SOURCES; i++) {
            sources.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [app]}\n");
        }
        return """
                node: {id: %s, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                %sdestinations:
                  app: {url: "%s"}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: 4, replication_factor: 1, timeout_ms: 5000}
                """.formatted(node, dir.resolve(node), sources, receiver.uri("/in"), brokers.bootstrapServers(), prefix);
    }

    /** A node on the system clock: the log's follower commits on a period of real time. */
    private TestEdge node(String name, String prefix, HookReceiver receiver) {
        return TestEdge.startWhole(dir, yaml(name, prefix, receiver), b -> b.clock(Clock.system()));
    }

    @Test
    void oneNodeDeliversEveryHookItAcceptedExactlyOnce() throws Exception {
        try (HookReceiver receiver = HookReceiver.start(); TestEdge a = node("a", "one", receiver)) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 30; i++) {
                accepted.add(accept(a, i));
            }
            TestEdge.await(() -> deliveredIds(receiver).equals(accepted));
            assertThat(receiver.requestCount()).as("each hook reached the receiver once").isEqualTo(accepted.size());
        }
    }

    /**
     * On this kind the dispatcher never sees the commit's copy of a hook: it reads what the
     * log's follower copied into the working set. The ingest span's traceparent travels that
     * way (the log record's {@code sluice-traceparent}), so the attempt joins the hook's trace.
     */
    @Test
    void theAttemptJoinsTheHooksTraceThroughTheLog() throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        try (OtlpReceiver otlp = OtlpReceiver.start(); HookReceiver receiver = HookReceiver.start()) {
            try (TestEdge a = TestEdge.startWhole(dir, yaml("a", "traced", receiver)
                    + "telemetry: {otlp: {endpoint: \"" + otlp.endpoint() + "\"}}\n", b -> b.clock(Clock.system()))) {
                TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
                Http.Response r = a.post("/hooks/s0", Map.of("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"), "{}");
                assertThat(r.status()).isEqualTo(202);
                HookReceiver.Received got = receiver.awaitRequests(1, java.time.Duration.ofSeconds(60)).get(0);
                assertThat(got.header("traceparent")).startsWith("00-" + traceId + "-").endsWith("-01");
                TestEdge.await(() -> !otlp.spans("sluice.deliver").isEmpty()); // the exporter's next batch
            }
            Span ingest = otlp.spans("sluice.ingest").get(0);
            Span attempt = otlp.spans("sluice.deliver").get(0);
            assertThat(OtlpReceiver.hex(attempt.getTraceId())).isEqualTo(traceId);
            assertThat(attempt.getParentSpanId()).isEqualTo(ingest.getSpanId());
            assertThat(attempt.getLinks(0).getSpanId()).isEqualTo(ingest.getSpanId());
            assertThat(receiver.received().get(0).header("traceparent"))
                    .isEqualTo("00-" + traceId + "-" + OtlpReceiver.hex(attempt.getSpanId()) + "-01");
        }
    }

    @Test
    void theFollowersFiguresAreOnMetrics() throws Exception {
        try (HookReceiver receiver = HookReceiver.start(); TestEdge a = node("a", "obs", receiver)) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 12; i++) {
                accepted.add(accept(a, i));
            }
            TestEdge.await(() -> deliveredIds(receiver).equals(accepted));
            // every hook delivered: the follower reads to the log's end and holds nothing back
            TestEdge.await(() -> {
                String m = MetricsTest.scrape(a);
                return gauge(m, "sluice_log_consumer_lag{topic=\"obs.hooks\"}") == 0
                        && gauge(m, "sluice_log_held_records{topic=\"obs.hooks\"}") == 0;
            });
            String metrics = MetricsTest.scrape(a);
            assertThat(gauge(metrics, "sluice_log_partitions_owned{topic=\"obs.hooks\"}")).as("the one node owns every partition")
                    .isEqualTo(4);
            assertThat(gauge(metrics, "sluice_log_partitions_owned{topic=\"obs.retry\"}")).isEqualTo(4);
            assertThat(gauge(metrics, "sluice_log_rebalances_total{kind=\"assigned\"}")).isEqualTo(1);
            assertThat(gauge(metrics, "sluice_log_rebalances_total{kind=\"revoked\"}")).isZero();
            assertThat(gauge(metrics, "sluice_log_rebalances_total{kind=\"lost\"}")).isZero();
            assertThat(gauge(metrics, "sluice_log_consumer_lag{topic=\"obs.retry\"}")).isZero();
        }
    }

    /** The value of the series named exactly {@code series} (name and labels) in a scrape; NaN when absent. */
    private static double gauge(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).strip());
            }
        }
        return Double.NaN;
    }

    @Test
    void twoNodesShareTheDeliveriesAndAPauseOnOneHoldsTheOther() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge a = node("a", "two", receiver);
             TestEdge b = node("b", "two", receiver)) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200
                    && Http.get(b.address, "/readyz").status() == 200);
            // both nodes in the delivery group, the four partitions shared out
            TestEdge.await(() -> !a.backends().follower().ownedPartitions().isEmpty()
                    && !b.backends().follower().ownedPartitions().isEmpty()
                    && a.backends().follower().ownedPartitions().size() + b.backends().follower().ownedPartitions().size() == 4);

            Set<String> accepted = new TreeSet<>();
            for (int i = 0; i < 40; i++) {
                accepted.add(accept(i % 2 == 0 ? a : b, i));
            }
            TestEdge.await(() -> deliveredIds(receiver).equals(accepted));
            assertThat(receiver.requestCount()).as("each hook reached the receiver once, from either node")
                    .isEqualTo(accepted.size());

            // paused through A's admin API: B learns it from the control topic
            Http.Response paused = admin(a, "POST", "/v1/destinations/app/pause");
            assertThat(paused.status()).as(paused.body()).isEqualTo(200);
            assertThat(JSON.readTree(paused.body()).get("state").asText()).isEqualTo("paused");
            TestEdge.await(() -> b.backends().overrides().pausedDestinations().contains("app"));

            int before = receiver.requestCount();
            List<String> held = new ArrayList<>();
            for (int i = 0; i < SOURCES; i++) { // one hook per key, so B's partitions get some
                held.add(accept(b, 100 + i));
            }
            // every held hook is in a node's working set, pending, and nothing was sent
            TestEdge.await(() -> held.stream().allMatch(id -> pendingIn(a, id) || pendingIn(b, id)));
            assertThat(held).as("some of them on B").anyMatch(id -> pendingIn(b, id));
            a.backends().dispatcher().wake();
            b.backends().dispatcher().wake();
            assertThat(receiver.requestCount()).as("nothing sent while paused").isEqualTo(before);
            int pauses = 0;
            for (JsonNode r : JSON.readTree(admin(b, "GET", "/v1/audit").body()).get("audit")) {
                pauses += r.get("action").asText().equals("pause") ? 1 : 0;
            }
            assertThat(pauses).as("the pause made on A, listed once by B").isEqualTo(1);

            Http.Response resumed = admin(b, "POST", "/v1/destinations/app/resume");
            assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
            accepted.addAll(held);
            TestEdge.await(() -> deliveredIds(receiver).equals(accepted));
            assertThat(receiver.requestCount()).isEqualTo(accepted.size());

            // a rate-limit override set on A applies on B
            Http.Response put = admin(a, "PUT", "/v1/tenants/t/rate-limit", "{\"rate\": 7, \"burst\": 9}");
            assertThat(put.status()).as(put.body()).isEqualTo(200);
            TestEdge.await(() -> b.backends().limits().list().tenants().stream()
                    .anyMatch(e -> e.tenant().equals("t") && e.limit() != null && e.limit().burst() == 9));
        }
    }

    /**
     * A dead letter made on node A (the receiver answering 410) is listed by node B, which
     * joined after it died, redelivered from B through the log, and delivered; it then leaves
     * both nodes' lists. Redelivering an id the log does not know is 404 hook_not_found.
     */
    @Test
    void aDeadLetterMadeOnOneNodeIsListedAndRedeliveredFromTheOther() throws Exception {
        try (HookReceiver receiver = HookReceiver.start(); TestEdge a = node("a", "dead", receiver)) {
            receiver.plan(HookReceiver.Answer.status(410));
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            String id = accept(a, 0);
            TestEdge.await(() -> deadLetterIds(a).contains(id));
            JsonNode heldByA = hook(a, id);
            assertThat(heldByA.get("deliveries_from").asText()).as("A holds the partition: its working set's row")
                    .isEqualTo("this_node");
            assertThat(heldByA.get("node").asText()).isEqualTo("a");
            assertDeadTo410(heldByA);
            try (TestEdge b = node("b", "dead", receiver)) {
                TestEdge.await(() -> Http.get(b.address, "/readyz").status() == 200);
                Eventually.until("B lists A's dead letter", LONG_WAIT, () -> deadLetterIds(b).contains(id));
                // B never read the hook (the group had committed past it): the fleet's dead letter shows it
                JsonNode fromB = hook(b, id);
                assertThat(fromB.get("deliveries_from").asText()).isEqualTo("dead_letters");
                assertThat(fromB.get("node").asText()).isEqualTo("b");
                assertDeadTo410(fromB);
                JsonNode fromA = hook(a, id); // its own row while it kept the partition, else the dead letter
                assertThat(fromA.get("deliveries_from").asText()).isIn("this_node", "dead_letters");
                assertDeadTo410(fromA);
                JsonNode letter = JSON.readTree(admin(b, "GET", "/v1/dead-letters?destination=app").body())
                        .get("dead_letters").get(0);
                assertThat(letter.get("id").asText()).isEqualTo(id);
                assertThat(letter.get("reason").asText()).isEqualTo("permanent_status");
                assertThat(letter.get("last_status").asInt()).isEqualTo(410);
                assertThat(letter.get("attempts").asInt()).isEqualTo(1);
                JsonNode app = JSON.readTree(admin(b, "GET", "/v1/destinations").body()).get("destinations").get(0);
                assertThat(app.get("dead").asLong()).as("the fleet's dead letters").isEqualTo(1);
                assertThat(app.get("node").asText()).isEqualTo("b");
                assertThat(app.has("unfinished_records")).isTrue();

                Http.Response unknown = admin(b, "POST", "/v1/hooks/" + UUID_V7_NEVER_USED + "/redeliver");
                assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
                assertThat(JSON.readTree(unknown.body()).get("error").asText()).isEqualTo("hook_not_found");
                assertThat(admin(b, "POST", "/v1/hooks/not-an-id/redeliver").status()).isEqualTo(404);
                Http.Response badAfter = admin(b, "GET", "/v1/dead-letters?after=not-an-id");
                assertThat(badAfter.status()).as(badAfter.body()).isEqualTo(400);
                assertThat(JSON.readTree(badAfter.body()).get("error").asText()).isEqualTo("invalid_after");
                assertThat(admin(b, "GET", "/v1/dead-letters?destination=nope").status()).isEqualTo(404);

                Http.Response redelivered = admin(b, "POST", "/v1/hooks/" + id + "/redeliver");
                assertThat(redelivered.status()).as(redelivered.body()).isEqualTo(202);
                assertThat(JSON.readTree(redelivered.body()).get("scheduled").asInt()).isEqualTo(1);
                Eventually.until("the redelivery delivered", LONG_WAIT,
                        () -> receiver.received().stream().filter(r -> id.equals(r.header("webhook-id"))).count() == 2);
                Eventually.until("the dead letter gone from both lists", LONG_WAIT,
                        () -> deadLetterIds(a).isEmpty() && deadLetterIds(b).isEmpty());
                // the owner of its retry partition holds it delivered; the other node knows nothing of it, or
                // (it gave the hooks partition up, keeping its finished hooks until retention) its older dead copy
                Eventually.until("one node shows it delivered", LONG_WAIT, () -> List.of(hook(a, id), hook(b, id)).stream()
                        .filter(v -> v.get("deliveries_from").asText().equals("this_node")
                                && v.get("deliveries").get(0).get("state").asText().equals("delivered")).count() == 1);
                List<JsonNode> views = List.of(hook(a, id), hook(b, id));
                JsonNode delivered = views.stream().filter(v -> v.get("deliveries").isArray()
                        && v.get("deliveries").get(0).get("state").asText().equals("delivered")).findFirst().orElseThrow();
                JsonNode other = views.get(0) == delivered ? views.get(1) : views.get(0);
                if (!other.get("deliveries_from").isNull()) {
                    assertThat(other.get("deliveries_from").asText()).as("%s", other).isEqualTo("this_node");
                    assertDeadTo410(other);
                    assertThat(Instant.parse(other.get("deliveries").get(0).get("updated_at").asText()))
                            .as("an earlier outcome than the redelivery's")
                            .isBefore(Instant.parse(delivered.get("deliveries").get(0).get("updated_at").asText()));
                } else {
                    assertThat(other.get("deliveries").isNull()).isTrue();
                }
                assertThat(JSON.readTree(admin(a, "GET", "/v1/destinations").body()).get("destinations").get(0)
                        .get("dead").asLong()).isZero();
                // every record finished and committed: the group's lag, as B reads it, is back to 0
                Eventually.until("no unfinished records left", LONG_WAIT, () -> unfinishedRecords(b) == 0);
            }
        }
    }

    /** {@code GET /v1/hooks/{id}} on {@code edge}, answered 200. */
    private JsonNode hook(TestEdge edge, String id) {
        try {
            Http.Response r = admin(edge, "GET", "/v1/hooks/" + id);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The hook's one delivery, to app: dead at its first attempt, answered 410. */
    private static void assertDeadTo410(JsonNode hook) {
        JsonNode deliveries = hook.get("deliveries");
        assertThat(deliveries).as("%s", hook).hasSize(1);
        JsonNode d = deliveries.get(0);
        assertThat(d.get("destination").asText()).isEqualTo("app");
        assertThat(d.get("state").asText()).isEqualTo("dead");
        assertThat(d.get("attempts").asInt()).isEqualTo(1);
        assertThat(d.get("last_status").asInt()).isEqualTo(410);
        assertThat(d.get("last_error").isNull()).isTrue();
        assertThat(d.get("dead_reason").asText()).isEqualTo("permanent_status");
        assertThat(d.get("next_attempt_at").isNull()).isTrue();
        assertThat(d.get("updated_at").isTextual()).isTrue();
        assertThat(d.get("filter").isNull()).isTrue();
        assertThat(d.has("event_type")).isTrue();
    }

    /** Generous: a rebalance as B joins, on a loaded machine. */
    private static final java.time.Duration LONG_WAIT = java.time.Duration.ofSeconds(90);
    /** A UUIDv7 (version and variant bits set) stamped in 2020, which no test hook carries. */
    private static final String UUID_V7_NEVER_USED = "01700000-0000-7000-8000-000000000000";

    private long unfinishedRecords(TestEdge edge) {
        try {
            JsonNode app = JSON.readTree(admin(edge, "GET", "/v1/destinations").body()).get("destinations").get(0);
            return app.get("unfinished_records").isNull() ? -1 : app.get("unfinished_records").asLong();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private Set<String> deadLetterIds(TestEdge edge) {
        return KafkaNodes.deadLetterIds(dir, edge);
    }

    private static boolean pendingIn(TestEdge edge, String id) {
        List<DeliveryRow> rows = edge.backends().store().deliveries().deliveries(id);
        return !rows.isEmpty() && rows.stream().allMatch(r -> r.state() == DeliveryState.PENDING);
    }

    private static Set<String> deliveredIds(HookReceiver receiver) {
        Set<String> ids = new TreeSet<>();
        for (HookReceiver.Received r : receiver.received()) {
            ids.add(r.header("webhook-id"));
        }
        return ids;
    }

    private static String accept(TestEdge edge, int n) throws Exception {
        return KafkaNodes.accept(edge, "s" + (n % SOURCES), n);
    }

    private Http.Response admin(TestEdge edge, String method, String path) throws Exception {
        return admin(edge, method, path, method.equals("GET") ? null : "");
    }

    private Http.Response admin(TestEdge edge, String method, String path, String body) throws Exception {
        return KafkaNodes.admin(dir, edge, method, path, body);
    }
}

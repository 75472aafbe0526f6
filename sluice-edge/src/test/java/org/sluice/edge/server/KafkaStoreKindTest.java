package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.kafka.HookRecords;

/**
 * {@code store.kind: kafka} in a real server (real sockets, a real broker of Kafka's KRaft
 * test kit): a node booted while its brokers are unreachable starts, answers {@code /readyz}
 * 503 {@code log_unavailable} and ingest 503 {@code store_unavailable}, and becomes ready by
 * itself once the broker is up; then a 202 means the record is on the log, and another node
 * finds the hook by id on its admin API and lists it, with the hooks both nodes accepted, in
 * {@code GET /v1/hooks} pages.
 */
class KafkaStoreKindTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    private String yaml(String node) {
        return """
                node: {id: %s, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  s: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                  s2: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                  s3: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                destinations:
                  app: {url: "http://127.0.0.1:9/"}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: boot, partitions: 2, replication_factor: 1, timeout_ms: 2000}
                """.formatted(node, dir.resolve(node), brokers.bootstrapServers());
    }

    @Test
    void aNodeBootedWithTheBrokersDownBecomesReadyByItselfAndA202IsOnTheLog() throws Exception {
        int broker = brokers.brokerIds().iterator().next();
        brokers.stopBroker(broker);
        TestEdge started = null;
        WarningWatch warnings = new WarningWatch();
        try {
            warnings.start();
            try {
                started = TestEdge.startWhole(dir, yaml("a"));
            } finally {
                warnings.stop();
            }
            // what the boot says of this kind: a replication factor below 3, the log down
            assertThat(warnings.problems).anyMatch(w -> w.contains("store.kafka.replication_factor is 1"))
                    .anyMatch(w -> w.contains("is unavailable at boot"));
            Http.Response ready = Http.get(started.address, "/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"log_unavailable\"}");
            Http.Response refused = post(started, "{\"n\":0}");
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.body()).isEqualTo("{\"error\":\"store_unavailable\"}");
            assertThat(refused.header("Retry-After")).isNotNull();
        } catch (RuntimeException | Error e) {
            if (started != null) {
                started.close();
            }
            throw e;
        } finally {
            brokers.startBroker(broker);
        }
        TestEdge a = started;
        try (a; TestEdge b = TestEdge.startWhole(dir, yaml("b"))) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);

            Http.Response accepted = post(a, "{\"n\":1}");
            assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
            String id = JSON.readTree(accepted.body()).get("id").asText();
            List<ConsumerRecord<byte[], byte[]>> records = brokers.readAll(List.of("boot.hooks"),
                    r -> r.stream().anyMatch(c -> id.equals(KafkaBrokers.header(c, HookRecords.ID))));
            ConsumerRecord<byte[], byte[]> record = records.stream()
                    .filter(c -> id.equals(KafkaBrokers.header(c, HookRecords.ID))).findFirst().orElseThrow();
            HookRecords.LoggedHook logged = HookRecords.read(record);
            assertThat(logged.hook().tenant()).isEqualTo("t");
            assertThat(logged.hook().source()).isEqualTo("s");
            assertThat(new String(logged.hook().body(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
            assertThat(logged.destinations()).containsExactly("app");

            // node B, which never saw this hook, finds it on the log
            JsonNode found = JSON.readTree(admin(b, "GET", "/v1/hooks/" + id).body());
            assertThat(found.get("id").asText()).isEqualTo(id);
            assertThat(found.get("tenant").asText()).isEqualTo("t");
            assertThat(found.get("deliveries").isNull()).as("this kind shows no fleet-wide deliveries yet").isTrue();
            assertThat(new String(Base64.getDecoder().decode(found.get("body_base64").asText()), StandardCharsets.UTF_8))
                    .isEqualTo("{\"n\":1}");

            // answered for the whole fleet (KafkaStoreDeliveryTest delivers a redelivery made on B)
            TestEdge.await(() -> { // 503 until B has read the dead-letter topic to its end
                try {
                    return admin(b, "GET", "/v1/dead-letters").status() == 200;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Http.Response dead = admin(b, "GET", "/v1/dead-letters");
            assertThat(JSON.readTree(dead.body()).get("dead_letters")).isEmpty();
            Http.Response destinations = admin(b, "GET", "/v1/destinations");
            assertThat(destinations.status()).as(destinations.body()).isEqualTo(200);
            assertThat(JSON.readTree(destinations.body()).get("destinations").get(0).get("node").asText()).isEqualTo("b");
            // replays read the log on this kind (KafkaStoreReplayTest): the route is served, and checks its body
            assertThat(admin(b, "POST", "/v1/destinations/app/replay").status()).isEqualTo(400);
            String metrics = Http.get(a.server.adminAddress(), "/metrics").body();
            assertThat(metrics).containsPattern("(?m)^sluice_log_produce_seconds_count 1(\\.0)?$").contains("sluice_log_produce_errors_total 0.0");

            // GET /v1/hooks answers for the fleet: hooks of three sources (both partitions) posted to A and B in turn,
            // listed from B newest first across pages of two, each once, by id
            List<String> ids = new java.util.ArrayList<>(List.of(id));
            for (int i = 0; i < 7; i++) {
                Http.Response r = post(i % 2 == 0 ? a : b, i % 3 == 0 ? "s" : i % 3 == 1 ? "s2" : "s3", "{\"m\":" + i + "}");
                assertThat(r.status()).as(r.body()).isEqualTo(202);
                ids.add(JSON.readTree(r.body()).get("id").asText());
            }
            ids.sort(java.util.Comparator.reverseOrder());
            List<String> listed = new java.util.ArrayList<>();
            String after = null;
            int pages = 0;
            do {
                Http.Response r = admin(b, "GET", "/v1/hooks?order=newest&limit=2" + (after == null ? "" : "&after=" + after));
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                JsonNode page = JSON.readTree(r.body());
                assertThat(page.get("hooks").size()).isLessThanOrEqualTo(2);
                page.get("hooks").forEach(h -> {
                    listed.add(h.get("id").asText());
                    assertThat(h.has("body_bytes")).isTrue();
                });
                after = page.get("next").isNull() ? null : page.get("next").asText();
                pages++;
            } while (after != null);
            assertThat(listed).containsExactlyElementsOf(ids);
            assertThat(pages).isEqualTo(4);
            // oldest first lists settled hooks only (30 s + timeout_ms old): none of these yet, and the page says it ended
            Http.Response oldest = admin(a, "GET", "/v1/hooks?limit=100");
            assertThat(oldest.status()).as(oldest.body()).isEqualTo(200);
            assertThat(JSON.readTree(oldest.body()).get("hooks")).isEmpty();
            assertThat(JSON.readTree(oldest.body()).get("next").isNull()).isTrue();
            Http.Response unknown = admin(a, "GET", "/v1/hooks?after=" + java.util.UUID.randomUUID());
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(JSON.readTree(unknown.body()).get("error").asText()).isEqualTo("invalid_after");

            // the broker down: ingest 503 store_unavailable with Retry-After, /readyz log_unavailable; back: both recover
            brokers.stopBroker(broker);
            try {
                TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 503);
                assertThat(Http.get(a.address, "/readyz").body())
                        .isEqualTo("{\"status\":\"unavailable\",\"reason\":\"log_unavailable\"}");
                Http.Response refused = post(a, "{\"n\":2}");
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.body()).isEqualTo("{\"error\":\"store_unavailable\"}");
                assertThat(refused.header("Retry-After")).isNotNull();
            } finally {
                brokers.startBroker(broker);
            }
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            assertThat(post(a, "{\"n\":3}").status()).isEqualTo(202);
        }
    }

    @Test
    void aTopicPrefixKafkaRefusesFailsTheBootNamingTheKeyAndValue() throws Exception {
        // Kafka refuses a topic whose name differs from an existing one only by '.' against '_'
        brokers.createTopic("clash_x.hooks", 1, 1, Map.of());
        assertThatThrownBy(() -> TestEdge.startWhole(dir, yaml("clash").replace("topic_prefix: boot", "topic_prefix: clash.x")))
                .hasStackTraceContaining("store.kafka.topic_prefix names a topic Kafka refuses")
                .hasStackTraceContaining("got \"clash.x\"");
        // the failed boot released the node's store: a node boots on the same data dir
        try (TestEdge again = TestEdge.startWhole(dir, yaml("clash"))) {
            TestEdge.await(() -> Http.get(again.address, "/readyz").status() == 200);
        }
    }

    private static Http.Response post(TestEdge edge, String body) {
        return post(edge, "s", body);
    }

    private static Http.Response post(TestEdge edge, String source, String body) {
        return Http.post(edge.address, "/hooks/" + source, Map.of("Content-Type", "application/json"),
                body.getBytes(StandardCharsets.UTF_8));
    }

    private Http.Response admin(TestEdge edge, String method, String path) throws Exception {
        String token = Files.readString(dir.resolve(edge.server.config().node().id()).resolve("admin.token")).strip();
        InetSocketAddress at = edge.server.adminAddress();
        try (Http http = Http.connect(new InetSocketAddress("127.0.0.1", at.getPort()))) {
            return http.request(method, path, Map.of("Authorization", "Bearer " + token), method.equals("POST") ? new byte[0] : null);
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.KafkaBrokers.header;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.UuidV7;
import org.sluice.testkit.Eventually;

/**
 * A replay on {@code store.kind: kafka} to a {@code kafka} destination streams (docs/fleet-log.md,
 * "Replays", "Streaming"), end to end with real parts (a Sluice server in this JVM, a broker of
 * Kafka's KRaft test kit, the destination a topic on it): healthy, every hook of the range is on
 * the destination topic once more, its record the same key and headers as its first delivery's,
 * with no fresh row in the working set, counted in the replay's status and in the delivered
 * attempts; with the destination's topic gone, the hooks fall back to the working set, are
 * retried, and are delivered once the topic is back.
 */
class KafkaReplayStreamTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int HOOKS = 40;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    /** Sources s0..s3 deliver to {@code bus}, the topic {@code topic}, keyed by source. */
    private TestEdge node(String prefix, String topic, String extra) {
        StringBuilder sources = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sources.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [bus]}\n");
        }
        String yaml = """
                node: {id: a, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                %sdestinations:
                  bus: {type: kafka, bootstrap_servers: ["%s"], topic: %s, key: source, timeout_ms: 2000%s}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: 2, replication_factor: 1, timeout_ms: 5000}
                """.formatted(dir.resolve("a"), sources, brokers.bootstrapServers(), topic, extra,
                brokers.bootstrapServers(), prefix);
        return TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()));
    }

    @Test
    void aReplayToAKafkaDestinationStreamsEveryHookOfTheRangeOnceWithTheRecordOfAFirstDelivery() throws Exception {
        brokers.createTopic("streamed", 3, 1, Map.of());
        try (TestEdge a = node("healthy", "streamed", "")) {
            List<String> ids = acceptAll(a);
            long from = millis(ids.get(0));
            long to = nextMillisAfter(ids);
            List<ConsumerRecord<byte[], byte[]>> first = brokers.readAll(List.of("streamed"), r -> r.size() >= HOOKS);
            assertThat(first).hasSize(HOOKS);
            assertThat(delivered(a)).isEqualTo(HOOKS);

            long started = System.currentTimeMillis();
            String replay = startReplay(a, from, to);
            Eventually.until("the replay done, every hook delivered", WAIT, () -> {
                JsonNode p = progress(a, replay);
                return p.get("state").asText().equals("done") && p.get("delivered").asLong() == HOOKS;
            });
            JsonNode done = progress(a, replay);
            assertThat(done.get("scheduled").asLong()).isEqualTo(HOOKS);
            assertThat(done.get("dead").asLong()).isZero();

            List<ConsumerRecord<byte[], byte[]>> all = brokers.readAll(List.of("streamed"), r -> r.size() >= 2 * HOOKS);
            Map<String, List<ConsumerRecord<byte[], byte[]>>> byHook = byHook(all);
            assertThat(byHook).containsOnlyKeys(ids);
            for (String id : ids) {
                List<ConsumerRecord<byte[], byte[]>> copies = byHook.get(id);
                assertThat(copies).as(id + ": its first delivery and the replay's, no more").hasSize(2);
                assertThat(copies.get(1).key()).isEqualTo(copies.get(0).key());
                assertThat(copies.get(1).value()).isEqualTo(copies.get(0).value());
                assertThat(headers(copies.get(1))).as("the replay's record is a first delivery's").isEqualTo(headers(copies.get(0)));
                assertThat(header(copies.get(1), "sluice-attempt")).isEqualTo("1");
                // streamed, not copied: the hook's row is the first delivery's, not rescheduled by the replay
                List<DeliveryRow> rows = a.backends().store().deliveries().deliveries(id);
                assertThat(rows).as(id).singleElement().satisfies(row -> {
                    assertThat(row.scheduledAtMillis()).isLessThan(started);
                    assertThat(row.attempts()).isEqualTo(1);
                });
            }
            assertThat(delivered(a)).as("sluice_delivery_attempts_total{outcome=delivered} counts the streamed")
                    .isEqualTo(2 * HOOKS);
        }
    }

    @Test
    void withTheDestinationsTopicGoneTheHooksFallBackToTheWorkingSetAndAreDeliveredOnceItIsBack() throws Exception {
        brokers.createTopic("refusing", 3, 1, Map.of());
        try (TestEdge a = node("refused", "refusing",
                ", retry: {initial_ms: 200, max_ms: 1000}, breaker: {failures: 1000}")) {
            List<String> ids = acceptAll(a);
            long from = millis(ids.get(0));
            long to = nextMillisAfter(ids);
            assertThat(brokers.readAll(List.of("refusing"), r -> r.size() >= HOOKS)).hasSize(HOOKS);

            try (Admin admin = admin()) {
                admin.deleteTopics(List.of("refusing")).all().get(60, TimeUnit.SECONDS);
                long started = System.currentTimeMillis();
                String replay = startReplay(a, from, to);
                Eventually.until("every hook of the range pending again in the working set", WAIT, () -> ids.stream()
                        .allMatch(id -> a.backends().store().deliveries().deliveries(id).stream()
                                .anyMatch(row -> row.scheduledAtMillis() >= started && row.attempts() >= 1)));
                assertThat(progress(a, replay).get("delivered").asLong()).as("nothing on a missing topic").isZero();
                recreate(admin, "refusing");
                Eventually.until("the replay done, every hook delivered", WAIT, () -> {
                    JsonNode p = progress(a, replay);
                    return p.get("state").asText().equals("done") && p.get("delivered").asLong() == HOOKS;
                });
                assertThat(progress(a, replay).get("scheduled").asLong()).as("each hook once").isEqualTo(HOOKS);
            }
            List<ConsumerRecord<byte[], byte[]>> after = brokers.readAll(List.of("refusing"), r -> r.size() >= HOOKS);
            Map<String, List<ConsumerRecord<byte[], byte[]>>> byHook = byHook(after);
            // at least once: an attempt the transport timed out may still be written by its producer
            assertThat(byHook).as("every hook of the range on the topic made again").containsOnlyKeys(ids);
            assertThat(gauge(a, "sluice_delivery_attempts_total", "outcome=\"retry\""))
                    .as("the streamed attempts that failed, and the ledger's retries").isGreaterThanOrEqualTo(HOOKS);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static List<String> acceptAll(TestEdge a) throws Exception {
        TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
        TestEdge.await(() -> !a.backends().follower().ownedPartitions().isEmpty());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < HOOKS; i++) {
            ids.add(KafkaNodes.accept(a, "s" + (i % 4), i));
        }
        return ids;
    }

    private String startReplay(TestEdge a, long from, long to) throws Exception {
        String body = "{\"from\":\"%s\",\"to\":\"%s\",\"rate\":100000}".formatted(Instant.ofEpochMilli(from),
                Instant.ofEpochMilli(to));
        Http.Response started = KafkaNodes.admin(dir, a, "POST", "/v1/destinations/bus/replay", body);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        return JSON.readTree(started.body()).get("replay").asText();
    }

    private JsonNode progress(TestEdge edge, String replay) {
        try {
            Http.Response r = KafkaNodes.admin(dir, edge, "GET", "/v1/replays/" + replay, null);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long delivered(TestEdge a) {
        return (long) gauge(a, "sluice_delivery_attempts_total", "outcome=\"delivered\"");
    }

    private static double gauge(TestEdge a, String name, String label) {
        Http.Response r = Http.get(a.server.adminAddress(), "/metrics");
        assertThat(r.status()).isEqualTo(200);
        double sum = 0;
        for (String line : r.body().lines().toList()) {
            if (line.startsWith(name + "{") && line.contains("destination=\"bus\"") && line.contains(label)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).strip());
            }
        }
        return sum;
    }

    private static Map<String, List<ConsumerRecord<byte[], byte[]>>> byHook(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<String, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.computeIfAbsent(header(r, "webhook-id"), k -> new ArrayList<>()).add(r);
        }
        return out;
    }

    private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> r) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Header h : r.headers()) {
            out.put(h.key(), new String(h.value(), java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrapServers());
        return Admin.create(p);
    }

    /** Makes the topic again, once its deletion has gone through. */
    private static void recreate(Admin admin, String topic) throws Exception {
        Eventually.until("topic " + topic + " made again", WAIT, () -> {
            try {
                brokers.createTopic(topic, 3, 1, Map.of());
                return true;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicExistsException) {
                    return false; // its deletion is still going through
                }
                throw new IllegalStateException(e);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The millisecond after the newest of these hooks' ids, once the wall clock has passed it. */
    private static long nextMillisAfter(List<String> ids) {
        long newest = ids.stream().mapToLong(KafkaReplayStreamTest::millis).max().orElseThrow();
        TestEdge.await(() -> System.currentTimeMillis() > newest + 1);
        return newest + 1;
    }

    private static long millis(String id) {
        return UuidV7.millisOf(UUID.fromString(id));
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.KafkaBrokers.header;
import static org.sluice.edge.delivery.KafkaBrokers.hookIds;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.testkit.Eventually;

/**
 * {@code type: kafka} when brokers fail: three KRaft brokers in this JVM (one of them also
 * the controller), every topic replicated three times with {@code min.insync.replicas=2},
 * and Sluice in a child JVM, watched through its admin API. One cluster for the class;
 * each case has its own topic, placed by hand so the test knows which broker leads it,
 * and starts again every broker it stopped.
 */
class KafkaClusterDeliveryTest {

    /** (tenant, source name) of the four sources the hooks are posted to, round-robin. */
    private static final String[][] ORIGINS = {{"acme", "a_github"}, {"acme", "a_stripe"}, {"globex", "g_github"},
            {"globex", "g_shop"}};
    private static final Duration LONG = Duration.ofSeconds(120);
    private static final Map<String, String> REPLICATED = Map.of("min.insync.replicas", "2");

    @RegisterExtension
    static final KafkaBrokersExtension kafka =
            KafkaBrokersExtension.brokers(3, Map.of("min.insync.replicas", "2", "default.replication.factor", "3"));

    /** The broker that shares its node with the controller: never stopped. */
    private static int steady;
    /** The two brokers a case may stop. */
    private static List<Integer> others;

    @TempDir
    Path dir;

    @BeforeAll
    static void pickBrokers() {
        steady = kafka.brokerIds().stream().filter(kafka.controllerIds()::contains).findFirst().orElseThrow();
        others = kafka.brokerIds().stream().filter(id -> id != steady).sorted().toList();
    }

    // ---------------------------------------------------------------- fixtures

    private NatsDeliveryTest.Sluice sluice(String destination) throws Exception {
        StringBuilder sources = new StringBuilder();
        for (String[] o : ORIGINS) {
            sources.append("  ").append(o[1]).append(": {tenant: ").append(o[0])
                    .append(", verify: {scheme: none}, deliver_to: [").append(destination.split(":")[0]).append("]}\n");
        }
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                node: {id: cluster, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "%s"}
                http: {listen: "127.0.0.1:0"}
                destinations:
                  %s
                sources:
                %s""".formatted(dir.resolve("data"), NatsDeliveryTest.TOKEN,
                destination.replace("${BOOTSTRAP}", String.join("\", \"", kafka.bootstrapServers().split(","))), sources));
        return NatsDeliveryTest.Sluice.start(config);
    }

    /** Posts {@code n} hooks round-robin over {@link #ORIGINS}, {@code first} numbering them; their ids in post order. */
    private static List<String> post(NatsDeliveryTest.Sluice sluice, int first, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = first; i < first + n; i++) {
            String source = ORIGINS[i % ORIGINS.length][1];
            Http.Response r = Http.post(sluice.ingest(), "/hooks/" + source, Map.of("Content-Type", "application/json"),
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).as("ingest answer").isEqualTo(202);
            try {
                ids.add(CrashSafetyTest.JSON.readTree(r.body()).get("id").asText());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return ids;
    }

    /** The one destination's object of {@code GET /v1/destinations}. */
    private static JsonNode destination(NatsDeliveryTest.Sluice sluice) {
        return sluice.get("/v1/destinations").get("destinations").get(0);
    }

    private static void awaitDelivered(NatsDeliveryTest.Sluice sluice, long n) {
        Eventually.until(n + " delivered", LONG, () -> destination(sluice).get("delivered_total").asLong() >= n);
    }

    /**
     * Waits until every one of {@code ids} is delivered (nothing pending, nothing dead), then
     * reads {@code topic} until it holds each of them; the records, each partition in offset order.
     */
    private static List<ConsumerRecord<byte[], byte[]>> awaitAllDeliveredAndRead(NatsDeliveryTest.Sluice sluice,
                                                                                 List<String> ids, String topic) {
        Eventually.until("all " + ids.size() + " delivered", LONG, () -> {
            JsonNode d = destination(sluice);
            return d.get("pending").asLong() == 0 && d.get("delivered_total").asLong() >= ids.size();
        });
        assertThat(destination(sluice).get("dead").asLong()).as("dead letters").isZero();
        Set<String> wanted = new HashSet<>(ids);
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(List.of(topic), r -> hookIds(r).containsAll(wanted));
        Set<String> missing = new HashSet<>(wanted);
        missing.removeAll(hookIds(records));
        assertThat(missing).as("delivered hooks not in topic %s (of %d)", topic, ids.size()).isEmpty();
        return records;
    }

    // ---------------------------------------------------------------- cases

    @Test
    void fifoOrderPerTenantAndSourceHoldsWhileThePartitionLeaderRestartsMidStream() throws Exception {
        int leader = others.get(0);
        List<Integer> replicas = new ArrayList<>(List.of(leader, others.get(1), steady));
        kafka.createTopic("fifo", Map.of(0, replicas, 1, List.of(leader, steady, others.get(1))), REPLICATED);
        try (NatsDeliveryTest.Sluice sluice = sluice("""
                fifo: {type: kafka, bootstrap_servers: ["${BOOTSTRAP}"], topic: fifo, key: source, ordering: fifo,
                       timeout_ms: 2000, retry: {initial_ms: 100, max_ms: 500}, breaker: {failures: 5, open_ms: 500, max_open_ms: 1000}}""")) {
            List<String> ids = new ArrayList<>(post(sluice, 0, 300));
            awaitDelivered(sluice, 100);
            kafka.stopBroker(leader);
            try {
                ids.addAll(post(sluice, 300, 300));
                // two of three replicas are in sync: a new leader takes the writes while the old one is down
                awaitDelivered(sluice, 400);
            } finally {
                kafka.startBroker(leader);
            }
            ids.addAll(post(sluice, 600, 300));

            List<ConsumerRecord<byte[], byte[]>> records = awaitAllDeliveredAndRead(sluice, ids, "fifo");
            // per (tenant, source): the first copy of each hook, in partition order, must be post (= commit) order
            Map<String, List<String>> firstCopies = new HashMap<>();
            Map<String, Integer> partitionOf = new HashMap<>();
            Set<String> seen = new HashSet<>();
            for (ConsumerRecord<byte[], byte[]> r : records) { // readAll keeps each partition's offset order
                String origin = header(r, "sluice-tenant") + "/" + header(r, "sluice-source");
                assertThat(partitionOf.computeIfAbsent(origin, o -> r.partition())).as("one partition per origin")
                        .isEqualTo(r.partition());
                String id = header(r, "webhook-id");
                if (seen.add(id)) {
                    firstCopies.computeIfAbsent(origin, o -> new ArrayList<>()).add(id);
                }
            }
            assertThat(seen).containsExactlyInAnyOrderElementsOf(ids);
            for (int o = 0; o < ORIGINS.length; o++) {
                String origin = ORIGINS[o][0] + "/" + ORIGINS[o][1];
                List<String> expected = new ArrayList<>();
                for (int i = o; i < ids.size(); i += ORIGINS.length) {
                    expected.add(ids.get(i));
                }
                assertThat(firstCopies.get(origin)).as("commit order of " + origin).containsExactlyElementsOf(expected);
            }
        }
    }

    @Test
    void twoBrokersDownLongerThanTheBreakersThresholdOpenItAndLoseNothing() throws Exception {
        // the steady broker leads; with the two others down it is alone in sync, under min.insync.replicas
        kafka.createTopic("down", Map.of(0, List.of(steady, others.get(0), others.get(1)),
                1, List.of(steady, others.get(1), others.get(0))), REPLICATED);
        try (NatsDeliveryTest.Sluice sluice = sluice("""
                down: {type: kafka, bootstrap_servers: ["${BOOTSTRAP}"], topic: down, key: hook_id, timeout_ms: 1500,
                       retry: {initial_ms: 100, max_ms: 500}, breaker: {failures: 3, open_ms: 1000, max_open_ms: 2000}}""")) {
            List<String> ids = new ArrayList<>(post(sluice, 0, 100));
            awaitDelivered(sluice, 100);
            for (int id : others) {
                kafka.stopBroker(id);
            }
            try {
                ids.addAll(post(sluice, 100, 200));
                Eventually.until("the breaker seen open", LONG, () -> "open".equals(destination(sluice).get("state").asText()));
                JsonNode d = sluice.delivery(ids.get(100)); // the first hook posted with two brokers down
                assertThat(d.get("state").asText()).isEqualTo("pending");
                assertThat(d.get("attempts").asInt()).isPositive();
                assertThat(d.get("last_status").isNull()).as("a broker's failure has no status: %s", d).isTrue();
                assertThat(d.get("last_error").asText()).as("last_error: %s", d).startsWith("kafka"); // NOT_ENOUGH_REPLICAS, or no ack in time
                assertThat(destination(sluice).get("failed_attempts_total").asLong()).isPositive();
            } finally {
                kafka.startBrokers(others);
            }
            awaitAllDeliveredAndRead(sluice, ids, "down");
            assertThat(sluice.delivery(ids.get(100)).get("last_status").isNull()).as("an ack has no status either").isTrue();
            assertThat(destination(sluice).get("state").asText()).isEqualTo("ok");
        }
    }
}

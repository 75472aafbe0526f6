package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.KafkaBrokers.header;
import static org.sluice.edge.delivery.KafkaBrokers.hookIds;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.NatsServer;

/**
 * One source fanned out to an {@code http}, a {@code kafka} and a {@code nats} destination at
 * once: a real receiver, a real KRaft broker in this JVM, a real {@code nats-server -js}, and
 * Sluice in a child JVM. Each destination gets every hook, with its bytes.
 */
class MixedFanOutTest {

    static final int HOOKS = 150;
    static final Duration LONG = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void everyDestinationTypeGetsEveryHookOfOneSource() throws Exception {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
        try (HookReceiver receiver = HookReceiver.start();
             KafkaBrokers kafka = KafkaBrokers.start(1, Map.of());
             NatsServer nats = NatsServer.start();
             NatsStream stream = NatsStream.on(nats.url(), "HOOKS").create(-1, "hooks.>")) {
            kafka.createTopic("hooks", 3, 1, Map.of());
            Path config = dir.resolve("sluice.yaml");
            Files.writeString(config, """
                    node: {id: fan, data_dir: "%s"}
                    admin: {listen: "127.0.0.1:0", token: "%s"}
                    http: {listen: "127.0.0.1:0"}
                    destinations:
                      app: {type: http, url: "%s", timeout_ms: 10000}
                      log: {type: kafka, bootstrap_servers: ["%s"], topic: hooks, key: source, timeout_ms: 10000}
                      bus: {type: nats, servers: ["%s"], subject: "hooks.{tenant}.{source}", timeout_ms: 10000}
                    sources:
                      s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [app, log, bus]}
                    """.formatted(dir.resolve("data"), NatsDeliveryTest.TOKEN, receiver.uri("/hooks"),
                    kafka.bootstrapServers(), nats.url()));

            Map<String, byte[]> sent = new HashMap<>();
            try (NatsDeliveryTest.Sluice sluice = NatsDeliveryTest.Sluice.start(config)) {
                for (int i = 0; i < HOOKS; i++) {
                    byte[] body = ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(i) + "\"}").getBytes(StandardCharsets.UTF_8);
                    sent.put(sluice.post(Map.of("X-Event-Id", "e-" + i, "Content-Type", "application/json"), body), body);
                }
                Eventually.until("every hook delivered to all three destinations", LONG, () -> {
                    for (com.fasterxml.jackson.databind.JsonNode d : sluice.get("/v1/destinations").get("destinations")) {
                        if (d.get("pending").asLong() != 0 || d.get("delivered_total").asLong() < HOOKS) {
                            return false;
                        }
                    }
                    return true;
                });
                // the admin API: an HTTP attempt has its status; a broker's acknowledgement has none
                for (String id : sent.keySet()) {
                    Map<String, com.fasterxml.jackson.databind.JsonNode> byDestination = new HashMap<>();
                    sluice.get("/v1/hooks/" + id).get("deliveries").forEach(d -> byDestination.put(d.get("destination").asText(), d));
                    assertThat(byDestination.keySet()).containsExactlyInAnyOrder("app", "log", "bus");
                    assertThat(byDestination.get("app").get("last_status").asInt()).isEqualTo(200);
                    for (String broker : List.of("log", "bus")) {
                        com.fasterxml.jackson.databind.JsonNode d = byDestination.get(broker);
                        assertThat(d.get("state").asText()).isEqualTo("delivered");
                        assertThat(d.get("last_status").isNull()).as("%s last_status of %s: %s", broker, id, d).isTrue();
                        assertThat(d.get("last_error").isNull()).as("%s last_error of %s: %s", broker, id, d).isTrue();
                    }
                }
            }

            // http: every hook, body byte for byte
            Map<String, byte[]> overHttp = new HashMap<>();
            receiver.received().forEach(r -> overHttp.put(r.header("webhook-id"), r.body()));
            assertThat(overHttp.keySet()).isEqualTo(sent.keySet());
            sent.forEach((id, body) -> assertThat(overHttp.get(id)).as("http body of %s", id).isEqualTo(body));

            // kafka: every hook on the topic, value byte for byte, keyed by source
            List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(List.of("hooks"),
                    got -> hookIds(got).containsAll(sent.keySet()));
            assertThat(hookIds(records)).isEqualTo(sent.keySet());
            for (ConsumerRecord<byte[], byte[]> r : records) {
                String id = header(r, "webhook-id");
                assertThat(r.value()).as("kafka value of %s", id).isEqualTo(sent.get(id));
                assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("s");
            }

            // nats: every hook in the stream, once
            Map<String, Integer> inStream = stream.idCounts();
            assertThat(inStream.keySet()).isEqualTo(sent.keySet());
            assertThat(inStream.values()).allMatch(n -> n == 1);

            // one header list on both brokers: the same sluice-received-at string, milliseconds always three digits
            Map<String, String> natsReceivedAt = new HashMap<>();
            stream.messages().forEach(m -> natsReceivedAt.put(m.getHeaders().getFirst("webhook-id"),
                    m.getHeaders().getFirst("sluice-received-at")));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                String id = header(r, "webhook-id");
                assertThat(header(r, "sluice-received-at")).as("sluice-received-at of %s", id)
                        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z")
                        .isEqualTo(natsReceivedAt.get(id));
            }
        }
    }
}

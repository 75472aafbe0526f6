package org.sluice.edge.delivery;

import org.sluice.edge.delivery.targets.Target;
import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.targets.KafkaTarget;
import org.sluice.edge.delivery.kafka.KafkaTransport;
import org.sluice.edge.delivery.targets.NatsTarget;
import org.sluice.edge.delivery.nats.NatsTransport;
import org.sluice.edge.store.StoredHook;

/**
 * The headers a Kafka record and a NATS message carry are one list
 * ({@link OutboundHeaders#forBroker}): the same names, values and order, and one format of
 * {@code sluice-received-at}. Built by each transport's own code, no broker needed.
 */
class BrokerHeadersTest {

    private static final List<String> FORWARD = List.of("Content-Type", "X-Trace");

    private static Destination destination(Target target) {
        return new Destination("d", target, 5_000, 4, Optional.empty(),
                OutboundHeaders.of("destinations.d", FORWARD, Map.of(), null, "test"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private static final Destination KAFKA = destination(
            new KafkaTarget(List.of("127.0.0.1:9"), "t", KafkaTarget.Key.SOURCE, "none", 0, Map.of()));
    private static final Destination NATS = destination(
            new NatsTarget(List.of("nats://127.0.0.1:9"), "hooks.{tenant}", Optional.empty()));

    private static StoredHook hook(String tenant, long receivedAtMillis) {
        Map<String, String> received = new LinkedHashMap<>();
        received.put("X-Trace", "tr-9");
        received.put("Content-Type", "application/json");
        received.put("X-Other", "not forwarded");
        return new StoredHook("h-1", tenant, "github", null, receivedAtMillis, received,
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static List<Map.Entry<String, String>> kafkaHeaders(StoredHook hook, int attempt) {
        ProducerRecord<byte[], byte[]> r = KafkaTransport.record(KAFKA, (KafkaTarget) KAFKA.target(), hook, attempt);
        List<Map.Entry<String, String>> out = new ArrayList<>();
        r.headers().forEach(h -> out.add(Map.entry(h.key(), new String(h.value(), StandardCharsets.UTF_8))));
        return out;
    }

    /** The NATS message's headers as they go on the wire, in order. */
    private static List<Map.Entry<String, String>> natsHeaders(StoredHook hook, int attempt) {
        Headers h = NatsTransport.headers(NATS, hook, attempt);
        String wire = new String(h.getSerialized(), StandardCharsets.US_ASCII);
        assertThat(wire).startsWith("NATS/1.0\r\n").endsWith("\r\n\r\n");
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (String line : wire.substring("NATS/1.0\r\n".length(), wire.length() - 4).split("\r\n")) {
            int colon = line.indexOf(':');
            out.add(Map.entry(line.substring(0, colon), line.substring(colon + 1)));
        }
        return out;
    }

    @Test
    void kafkaAndNatsCarryTheSameHeadersInTheContractOrder() {
        StoredHook hook = hook("acme", 1_796_286_158_123L); // 2026-12-03T08:22:38.123Z
        List<Map.Entry<String, String>> expected = List.of(
                Map.entry("webhook-id", "h-1"),
                Map.entry("sluice-tenant", "acme"),
                Map.entry("sluice-source", "github"),
                Map.entry("sluice-received-at", "2026-12-03T08:22:38.123Z"),
                Map.entry("sluice-attempt", "2"),
                Map.entry("x-trace", "tr-9"),
                Map.entry("content-type", "application/json"));
        assertThat(kafkaHeaders(hook, 2)).containsExactlyElementsOf(expected);
        // NATS: the stream's dedupe id first, then the same pairs in the same order
        List<Map.Entry<String, String>> nats = new ArrayList<>(List.of(Map.entry("Nats-Msg-Id", "h-1")));
        nats.addAll(expected);
        assertThat(natsHeaders(hook, 2)).containsExactlyElementsOf(nats);
    }

    @Test
    void aTracedAttemptCarriesItsTraceparentOnKafkaAsOnNatsAfterTheAttemptNumber() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        StoredHook hook = hook("acme", 1_796_286_158_123L).withTraceparent(traceparent);
        List<Map.Entry<String, String>> kafka = kafkaHeaders(hook, 1);
        assertThat(kafka.get(5)).isEqualTo(Map.entry("traceparent", traceparent));
        assertThat(kafka.get(4)).isEqualTo(Map.entry("sluice-attempt", "1"));
        assertThat(natsHeaders(hook, 1)).contains(Map.entry("traceparent", traceparent));
        assertThat(kafkaHeaders(hook("acme", 0), 1)).noneMatch(e -> e.getKey().equals("traceparent"));
    }

    @Test
    void receivedAtOnAWholeSecondKeepsItsThreeFractionDigitsOnKafkaAsOnNats() {
        StoredHook hook = hook(null, 1_796_286_158_000L);
        String kafka = kafkaHeaders(hook, 1).stream().filter(e -> e.getKey().equals("sluice-received-at"))
                .findFirst().orElseThrow().getValue();
        assertThat(kafka).isEqualTo("2026-12-03T08:22:38.000Z");
        assertThat(natsHeaders(hook, 1)).contains(Map.entry("sluice-received-at", kafka), Map.entry("sluice-tenant", ""));
    }

    @Test
    void receivedAtIsAlwaysThreeFractionDigitsInUtc() {
        assertThat(OutboundHeaders.receivedAt(0)).isEqualTo("1970-01-01T00:00:00.000Z");
        assertThat(OutboundHeaders.receivedAt(1_796_286_158_007L)).isEqualTo("2026-12-03T08:22:38.007Z");
        assertThat(OutboundHeaders.receivedAt(1_796_286_158_070L)).isEqualTo("2026-12-03T08:22:38.070Z");
    }
}

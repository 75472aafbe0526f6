package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.StandardWebhooksCheck;
import org.sluice.testkit.HookReceiver;

/**
 * Sluice's operational events on a real server with a real receiver and a manual wall clock:
 * {@code dead_letter.created} arrives Standard-Webhooks-signed with the JSON body
 * {@code {type, timestamp, data}}, at most once per destination per
 * {@code events.dead_letter_interval_seconds}, the next one counting the dead letters that
 * made none; {@code store.nearly_full} once the store reaches its share of
 * {@code store.max_bytes}. ({@code destination.disabled} and {@code destination.recovered}:
 * {@link DisabledDestinationTest}.)
 */
class OperationalEventsTest {

    static final String SECRET = "whsec_b3BlcmF0aW9uYWwtZXZlbnRzLWtleQ==";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_900_000_000_000L);

    /**
     * The {@code index}-th request to {@code /ops}, checked: signed with {@link #SECRET} at
     * {@code nowMillis}, its body a JSON event; returned as JSON.
     */
    static JsonNode event(HookReceiver receiver, int index, long nowMillis) {
        List<HookReceiver.Received> ops = receiver.received().stream().filter(r -> r.path().equals("/ops")).toList();
        HookReceiver.Received r = ops.get(index);
        assertThat(new StandardWebhooksCheck(SECRET, 300).genuine(r.header("webhook-id"), r.header("webhook-timestamp"),
                r.header("webhook-signature"), r.body(), nowMillis / 1000))
                .as("the event's Standard Webhooks signature").isTrue();
        try {
            JsonNode event = JSON.readTree(r.body());
            assertThat(event.fieldNames()).toIterable().containsExactly("type", "timestamp", "data");
            return event;
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + r.bodyText(), e);
        }
    }

    @Test
    void deadLettersMakeAtMostOneSignedEventPerIntervalAndTheNextCountsTheRest() throws Exception {
        try (HookReceiver receiver = HookReceiver.start()
                .answerWhen(r -> r.path().equals("/app"), HookReceiver.Answer.status(410))
                .defaultAnswer(HookReceiver.Answer.status(200));
             TestEdge edge = TestEdge.startWith(dir, """
                     http: {listen: "127.0.0.1:0"}
                     destinations:
                       app: {url: "%s"}
                       ops:
                         url: "%s"
                         signing: {scheme: standard_webhooks, secret: "%s"}
                     sources:
                       gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app]}
                     events: {deliver_to: [ops], dead_letter_interval_seconds: 60}
                     """.formatted(receiver.uri("/app"), receiver.uri("/ops"), SECRET), b -> b.epochMillis(now::get))) {
            for (int i = 0; i < 3; i++) {
                assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":" + i + "}").status()).isEqualTo(202);
            }
            TestEdge.await(() -> deadAt(edge, "app") == 3);
            TestEdge.await(() -> DisabledDestinationTest.count(receiver, "/ops") == 1);
            JsonNode first = event(receiver, 0, now.get());
            assertThat(first.get("type").asText()).isEqualTo("dead_letter.created");
            assertThat(first.get("timestamp").asText()).isEqualTo(java.time.Instant.ofEpochMilli(now.get()).toString());
            JsonNode data = first.get("data");
            assertThat(data.get("destination").asText()).isEqualTo("app");
            assertThat(data.get("source").asText()).isEqualTo("gh");
            assertThat(data.get("reason").asText()).isEqualTo("permanent_status");
            assertThat(data.get("last_status").asInt()).isEqualTo(410);
            assertThat(data.get("suppressed").asLong()).isZero();
            assertThat(data.get("hook_id").asText()).isNotEmpty();

            now.addAndGet(60_000); // the interval has passed: the next dead letter makes an event, counting two
            assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":3}").status()).isEqualTo(202);
            TestEdge.await(() -> DisabledDestinationTest.count(receiver, "/ops") >= 2);
            JsonNode second = event(receiver, 1, now.get());
            assertThat(second.get("type").asText()).isEqualTo("dead_letter.created");
            assertThat(second.get("data").get("suppressed").asLong()).isEqualTo(2);

            // events are committed in order: with the second delivered and nothing pending, there were two
            TestEdge.await(() -> pendingAt(edge, "ops") == 0);
            assertThat(DisabledDestinationTest.count(receiver, "/ops")).isEqualTo(2);
            assertThat(deadAt(edge, "app")).isEqualTo(4);
        }
    }

    @Test
    void aStoreReachingItsNearlyFullShareMakesOneStoreNearlyFullEvent() throws Exception {
        long maxBytes = 2 * 1024 * 1024;
        String pad = "{\"pad\":\"" + "x".repeat(1024) + "\"}";
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.startWith(dir, """
                     http: {listen: "127.0.0.1:0"}
                     store: {max_bytes: %d}
                     destinations:
                       ops:
                         url: "%s"
                         signing: {scheme: standard_webhooks, secret: "%s"}
                     sources:
                       keep: {tenant: t, verify: {scheme: none}}
                     events: {deliver_to: [ops], store_nearly_full_percent: 50}
                     """.formatted(maxBytes, receiver.uri("/ops"), SECRET), b -> b.epochMillis(now::get))) {
            // fill, a retention tick (which reads the size) after each hook, until the event is committed
            for (int i = 0; i < 5_000 && DisabledDestinationTest.count(receiver, "/ops") == 0
                    && pendingAt(edge, "ops") == 0; i++) {
                assertThat(edge.post("/hooks/keep", Map.of(), pad).status()).isEqualTo(202);
                edge.server.retainOnce();
            }
            TestEdge.await(() -> DisabledDestinationTest.count(receiver, "/ops") == 1);
            JsonNode event = event(receiver, 0, now.get());
            assertThat(event.get("type").asText()).isEqualTo("store.nearly_full");
            assertThat(event.get("data").get("max_bytes").asLong()).isEqualTo(maxBytes);
            assertThat(event.get("data").get("threshold_percent").asInt()).isEqualTo(50);
            assertThat(event.get("data").get("bytes").asLong()).isGreaterThanOrEqualTo(maxBytes / 2);
        }
    }

    private static long deadAt(TestEdge edge, String destination) {
        return edge.backends().store().deliveries().counts(destination, System.currentTimeMillis()).dead();
    }

    private static long pendingAt(TestEdge edge, String destination) {
        return edge.backends().store().deliveries().counts(destination, System.currentTimeMillis()).pending();
    }
}

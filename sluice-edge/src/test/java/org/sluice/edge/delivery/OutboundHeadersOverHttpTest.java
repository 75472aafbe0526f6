package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.HookReceiver.Received;

/**
 * The headers of an attempt survive a real HTTP hop unchanged, and the receiver's side of
 * Standard Webhooks accepts the signature it got. This sends requests by hand with the JDK
 * client; it is a check of the headers, not delivery.
 */
class OutboundHeadersOverHttpTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void everyHeaderArrivesAndTheSignatureVerifiesOnTheReceiver() throws Exception {
        byte[] body = "{\"type\":\"invoice.paid\",\"n\":\"ü\"}".getBytes(StandardCharsets.UTF_8);
        StoredHook hook = new StoredHook("0190c7a2-5f4e-7d3c-8b1a-2c3d4e5f6a7b", "acme", "billing", null,
                1_700_000_000_000L, Map.of("X-Trace", "t-9", "Content-Type", "application/json"), body);
        OutboundHeaders headers = OutboundHeaders.of("destinations.app", List.of("x-trace", "content-type"),
                Map.of("x-api-key", "k-1"), WebhookSigner.fromSecret("destinations.app.secret", SECRET), "0.1.0");

        try (HookReceiver receiver = HookReceiver.start()) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<Map.Entry<String, String>> sent = headers.forAttempt(hook, 2, 1_700_000_123L);
            HttpRequest.Builder request = HttpRequest.newBuilder(receiver.uri("/in")).timeout(WAIT)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            sent.forEach(h -> request.header(h.getKey(), h.getValue()));
            assertThat(client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);

            Received got = receiver.awaitRequests(1, WAIT).get(0);
            for (Map.Entry<String, String> h : sent) {
                assertThat(got.headerValues(h.getKey())).as(h.getKey()).containsExactly(h.getValue());
            }
            assertThat(got.header("user-agent")).isEqualTo("sluice/0.1.0");
            assertThat(got.body()).isEqualTo(body);
            StandardWebhooksCheck check = new StandardWebhooksCheck(SECRET, 300);
            assertThat(check.genuine(got.header("webhook-id"), got.header("webhook-timestamp"),
                    got.header("webhook-signature"), got.body(), 1_700_000_130L)).isTrue();
        }
    }
}

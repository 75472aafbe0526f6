package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.WebhookSigner;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * A destination's {@code transform} on a real server with a real receiver: what arrives is
 * the reshaped request (method, path, query, headers, body, signed over the body as sent); a
 * transformation that fails makes one dead delivery with {@code transform_error} and its
 * reason, sends nothing, and the hook is delivered once the transformation is fixed and the
 * hook redelivered. Beside it, a destination signing with two secrets (a rotation) under a
 * receiver's own header names. {@code transform:test} answers the request a transformation
 * would make of a stored hook or a given body, and sends nothing.
 */
class TransformedDeliveryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=";
    private static final String NEXT_SECRET = "whsec_bmV4dC1rZXktZm9yLXRlc3Rz";

    @TempDir
    Path dir;

    private static String config(HookReceiver receiver, String brokenPath) {
        return """
                http: {listen: "127.0.0.1:0"}
                destinations:
                  shaped:
                    url: "%s"
                    signing: {scheme: standard_webhooks, secret: "%s"}
                    transform:
                      method: PUT
                      path: "/t/{tenant}/{$.type}"
                      query: {id: "{$.data.id}", from: "{source}"}
                      headers: {X-Event: "{$.type}"}
                      body: {kind: "{$.type}", object: "{$.data}", hook: "{hook_id}"}
                  renamed:
                    url: "%s"
                    signing:
                      scheme: standard_webhooks
                      secrets: ["%s", "%s"]
                      id_header: X-Hook-Id
                      timestamp_header: X-Hook-Time
                      signature_header: X-Hook-Signature
                  broken:
                    url: "%s"
                    retry: {max_attempts: 5}
                    transform: {path: "%s"}
                sources:
                  stripe-acme:
                    tenant: acme
                    verify: {scheme: none}
                    deliver_to: [shaped, renamed, broken]
                """.formatted(receiver.uri("/ignored?x=1"), SECRET, receiver.uri("/renamed"), SECRET, NEXT_SECRET,
                receiver.uri("/b"), brokenPath);
    }

    @Test
    void theReceiverGetsTheReshapedRequestAndAFailedTransformIsOneDeadLetter() throws Exception {
        String id;
        try (HookReceiver receiver = HookReceiver.start()) {
            try (TestEdge edge = TestEdge.start(dir, config(receiver, "/b/{$.missing}"))) {
                Http.Response r = edge.post("/hooks/stripe-acme", Map.of(),
                        "{\"type\":\"invoice.paid\",\"data\":{\"id\":\"in 1/2\",\"amount\":300}}");
                assertThat(r.status()).as(r.body()).isEqualTo(202);
                id = JSON.readTree(r.body()).get("id").asText();

                List<HookReceiver.Received> two = receiver.awaitRequests(2, Duration.ofSeconds(30));
                HookReceiver.Received got = two.stream().filter(x -> !x.path().startsWith("/renamed")).findFirst().orElseThrow();
                HookReceiver.Received renamed = two.stream().filter(x -> x.path().startsWith("/renamed")).findFirst().orElseThrow();
                // a rotation under way, under a receiver's own header names: both secrets sign
                assertThat(renamed.header("webhook-id")).isNull();
                assertThat(renamed.header("webhook-signature")).isNull();
                assertThat(renamed.header("x-hook-id")).isEqualTo(id);
                String both = renamed.header("x-hook-signature");
                assertThat(both.split(" ")).hasSize(2);
                long ts = Long.parseLong(renamed.header("x-hook-time"));
                assertThat(both).isEqualTo(WebhookSigner.fromSecret("old", SECRET).signature(id, ts, renamed.body()) + " "
                        + WebhookSigner.fromSecret("new", NEXT_SECRET).signature(id, ts, renamed.body()));
                assertThat(got.method()).isEqualTo("PUT");
                assertThat(got.path()).isEqualTo("/t/acme/invoice.paid?id=in%201%2F2&from=stripe-acme");
                assertThat(got.header("x-event")).isEqualTo("invoice.paid");
                assertThat(got.header("content-type")).isEqualTo("application/json");
                assertThat(JSON.readTree(got.body())).isEqualTo(JSON.readTree(
                        "{\"kind\":\"invoice.paid\",\"object\":{\"id\":\"in 1/2\",\"amount\":300},\"hook\":\"" + id + "\"}"));
                // signed over the body as sent
                String expected = WebhookSigner.fromSecret("test", SECRET).signature(got.header("webhook-id"),
                        Long.parseLong(got.header("webhook-timestamp")), got.body());
                assertThat(got.header("webhook-signature")).isEqualTo(expected);

                String token = Files.readString(dir.resolve("admin.token")).strip();
                AtomicReference<JsonNode> dead = new AtomicReference<>();
                Eventually.until("the broken transform's delivery is dead", () -> {
                    for (JsonNode d : get(edge, token, "/v1/hooks/" + id).get("deliveries")) {
                        if (d.get("destination").asText().equals("broken") && d.get("state").asText().equals("dead")) {
                            dead.set(d);
                        }
                    }
                    return dead.get() != null;
                });
                JsonNode broken = dead.get();
                assertThat(broken.get("dead_reason").asText()).isEqualTo("transform_error");
                assertThat(broken.get("attempts").asInt()).isEqualTo(1);
                assertThat(broken.get("last_error").asText())
                        .isEqualTo("transform_error: placeholder {$.missing} finds no value in the body");
                assertThat(receiver.received()).as("nothing was sent for the broken transform").hasSize(2);

                // transform:test shows the request a transformation would make, sending nothing
                HttpResponse<String> trial = post(edge, token, "/v1/destinations/shaped/transform:test", "{\"hook\":\"" + id + "\"}");
                assertThat(trial.statusCode()).as(trial.body()).isEqualTo(200);
                JsonNode t = JSON.readTree(trial.body());
                assertThat(t.get("method").asText()).isEqualTo("PUT");
                assertThat(t.get("url").asText()).isEqualTo(receiver.uri("/t/acme/invoice.paid").toString() + "?id=in%201%2F2&from=stripe-acme");
                assertThat(t.get("headers").get("x-event").asText()).isEqualTo("invoice.paid");
                assertThat(JSON.readTree(t.get("body").asText())).isEqualTo(JSON.readTree(got.body()));
                HttpResponse<String> fails = post(edge, token, "/v1/destinations/broken/transform:test",
                        "{\"body\":\"{\\\"type\\\":\\\"a\\\"}\"}");
                assertThat(fails.statusCode()).as(fails.body()).isEqualTo(422);
                assertThat(JSON.readTree(fails.body()).get("message").asText()).isEqualTo("placeholder {$.missing} finds no value in the body");
                HttpResponse<String> fixedTrial = post(edge, token, "/v1/destinations/shaped/transform:test",
                        "{\"body\":\"{\\\"type\\\":\\\"a\\\",\\\"data\\\":{\\\"id\\\":7}}\",\"tenant\":\"t\",\"source\":\"s\"}");
                assertThat(fixedTrial.statusCode()).as(fixedTrial.body()).isEqualTo(200);
                assertThat(JSON.readTree(fixedTrial.body()).get("url").asText()).endsWith("/t/t/a?id=7&from=s");
                assertThat(post(edge, token, "/v1/destinations/renamed/transform:test", "{\"hook\":\"" + id + "\"}").statusCode())
                        .isEqualTo(409);
                assertThat(post(edge, token, "/v1/destinations/shaped/transform:test", "{\"hook\":1}").statusCode()).isEqualTo(400);
                assertThat(receiver.received()).as("a trial sends nothing").hasSize(2);
            }
            // fixed, then redelivered: the hook was never lost
            try (TestEdge edge = TestEdge.start(dir, config(receiver, "/b/{$.type}"))) {
                String token = Files.readString(dir.resolve("admin.token")).strip();
                HttpResponse<String> again = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + "/v1/hooks/" + id + "/redeliver"))
                        .header("Authorization", "Bearer " + token).header("X-Sluice-Actor", "test")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"destinations\":[\"broken\"]}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
                List<HookReceiver.Received> all = receiver.awaitRequests(3, Duration.ofSeconds(30));
                assertThat(all.get(2).method()).isEqualTo("POST");
                assertThat(all.get(2).path()).isEqualTo("/b/invoice.paid");
                assertThat(all.get(2).header("webhook-id")).isEqualTo(id);
            }
        }
    }

    private static HttpResponse<String> post(TestEdge edge, String token, String path, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode get(TestEdge edge, String token, String path) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                    .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError(path, e);
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.HookReceiver;

/**
 * Issue 46, point 11, over real HTTP: a hook is stored with the headers something reads
 * later (the verification scheme's, the dedupe header, the destinations'
 * {@code forward_headers}, {@code Content-Type}, and those {@code store_headers} adds), not
 * with an {@code Authorization} or {@code Cookie} the sender added; under
 * {@code store_headers: all} those are stored but shown redacted; a header sent twice in
 * different case is stored, shown and forwarded once, its values joined.
 */
class StoredHeadersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final String SECRET = "stored-headers-secret";

    @TempDir
    Path dir;

    private static String config(int receiverPort) {
        return """
                http: {listen: "127.0.0.1:0"}
                destinations:
                  app:
                    url: "http://127.0.0.1:%d/in"
                    forward_headers: [X-Trace]
                sources:
                  signed:
                    verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256,
                             encoding: hex, secrets: ["%s"]}
                    dedupe: {header: X-Event-Id}
                    deliver_to: [app]
                    store_headers: [X-Keep]
                  everything:
                    verify: {scheme: none}
                    store_headers: all
                """.formatted(receiverPort, SECRET);
    }

    private static String sign(String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }

    private JsonNode hook(TestEdge edge, String id) throws Exception {
        String token = Files.readString(dir.resolve("admin.token")).strip();
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + "/v1/hooks/" + id))
                .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static List<String> names(JsonNode headers) {
        List<String> out = new ArrayList<>();
        headers.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static String accepted(Http.Response r) throws Exception {
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }

    @Test
    void onlyTheNeededHeadersAreStoredAndTheSignatureStillChecksFromTheStoredHook() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, config(receiver.port()))) {
            String body = "{\"id\":\"evt-1\"}";
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/json");
            headers.put("Authorization", "Bearer sender-credential-1");
            headers.put("Cookie", "session=sender-cookie-1");
            headers.put("X-Signature", sign(body));
            headers.put("X-Event-Id", "evt-1");
            headers.put("X-Trace", "t-1");
            headers.put("x-trace", "t-2");
            headers.put("X-Keep", "kept");
            headers.put("X-Other", "dropped");
            String id = accepted(Http.post(edge.address, "/hooks/signed", headers, body.getBytes(StandardCharsets.UTF_8)));

            JsonNode stored = hook(edge, id);
            assertThat(names(stored.get("headers")))
                    .containsExactly("Content-Type", "X-Signature", "X-Event-Id", "X-Trace", "X-Keep");
            assertThat(stored.toString()).doesNotContain("sender-credential-1").doesNotContain("sender-cookie-1")
                    .doesNotContain("dropped");
            assertThat(stored.get("headers").get("X-Trace").asText()).isEqualTo("t-1, t-2");
            // what a replay's reader needs: the signature over the stored body checks
            String storedBody = new String(Base64.getDecoder().decode(stored.get("body_base64").asText()),
                    StandardCharsets.UTF_8);
            assertThat(stored.get("headers").get("X-Signature").asText()).isEqualTo(sign(storedBody));

            // forwarded once, its values joined
            HookReceiver.Received delivered = receiver.awaitRequests(1, Duration.ofSeconds(30)).get(0);
            assertThat(delivered.headers().get("x-trace")).containsExactly("t-1, t-2");
            assertThat(delivered.headers()).doesNotContainKey("authorization").doesNotContainKey("cookie");
        }
    }

    @Test
    void underStoreHeadersAllCredentialsAreStoredButShownRedacted() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, config(receiver.port()))) {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Authorization", "Bearer sender-credential-2");
            headers.put("Cookie", "session=sender-cookie-2");
            headers.put("X-Other", "shown");
            headers.put("X-Dup", "a");
            headers.put("x-dup", "b");
            String id = accepted(Http.post(edge.address, "/hooks/everything", headers,
                    "{}".getBytes(StandardCharsets.UTF_8)));

            JsonNode stored = hook(edge, id);
            assertThat(stored.toString()).doesNotContain("sender-credential-2").doesNotContain("sender-cookie-2");
            assertThat(stored.get("headers").get("Authorization").asText()).isEqualTo("[redacted]");
            assertThat(stored.get("headers").get("Cookie").asText()).isEqualTo("[redacted]");
            assertThat(stored.get("headers").get("X-Other").asText()).isEqualTo("shown");
            assertThat(stored.get("headers").get("X-Dup").asText()).isEqualTo("a, b");
            assertThat(stored.get("headers").has("x-dup")).isFalse();
        }
    }
}

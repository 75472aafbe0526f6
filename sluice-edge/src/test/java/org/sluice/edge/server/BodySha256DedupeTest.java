package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.verify.Signatures;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.RedisServer;

/**
 * {@code dedupe: body_sha256} on a real server: a captured delivery sent again under a fresh
 * delivery id is a duplicate, because the key is the body's digest and not the unsigned id
 * header. Node scope (the store's index) and fleet scope (a claim in a real Redis, two nodes).
 */
class BodySha256DedupeTest {

    static final String GH_SECRET = "gh-secret";
    static final String HMAC_SECRET = "s3cret";

    static String sha256Hex(byte[] body) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    }

    static Map<String, String> github(byte[] body, String deliveryId) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("X-Hub-Signature-256", Signatures.github(GH_SECRET, body));
        h.put("X-GitHub-Delivery", deliveryId);
        return h;
    }

    static Map<String, String> hmac(byte[] body, String eventId) {
        return Map.of("X-Signature", Signatures.hmac("sha256", "hex", "sha256=", HMAC_SECRET, body), "X-Event-Id", eventId);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- node scope: one server for these tests

    @TempDir
    static Path dir;
    static TestEdge edge;

    @BeforeAll
    static void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  gh:       {tenant: acme, verify: {scheme: github, secrets: ["%s"]}, dedupe: body_sha256}
                  custom:   {tenant: acme, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["%s"]}, dedupe: body_sha256}
                  byheader: {tenant: acme, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["%s"]}, dedupe: {header: X-Event-Id}}
                """.formatted(GH_SECRET, HMAC_SECRET, HMAC_SECRET));
    }

    @AfterAll
    static void stop() {
        edge.close();
    }

    static Http.Response post(String source, Map<String, String> headers, byte[] body) {
        return Http.post(edge.address, "/hooks/" + source, headers, body);
    }

    List<StoredHook> stored(String source, byte[] body) throws Exception {
        String key = sha256Hex(body);
        return StoredHooks.all(edge.backends().store()).stream()
                .filter(h -> h.source().equals(source) && key.equals(h.dedupeKey())).toList();
    }

    @Test
    void aReplayUnderAFreshDeliveryIdIsADuplicate() throws Exception {
        byte[] body = utf8("{\"action\":\"opened\",\"number\":1}");
        Http.Response first = post("gh", github(body, "delivery-1"), body);
        assertThat(first.status()).as(first.toString()).isEqualTo(202);
        String id = json(first).get("id").asText();

        Http.Response replay = post("gh", github(body, "delivery-2-fresh"), body);
        assertThat(replay.status()).as(replay.toString()).isEqualTo(200);
        assertThat(json(replay).get("status").asText()).isEqualTo("duplicate");
        assertThat(json(replay).get("id").asText()).isEqualTo(id);

        byte[] other = utf8("{\"action\":\"opened\",\"number\":2}");
        assertThat(post("gh", github(other, "delivery-1"), other).status())
                .as("a different body under the first delivery id is a new hook").isEqualTo(202);

        assertThat(stored("gh", body)).singleElement().extracting(StoredHook::id).isEqualTo(id);
        assertThat(stored("gh", other)).hasSize(1);
    }

    @Test
    void theCustomSchemeToo() throws Exception {
        byte[] body = utf8("{\"event\":\"paid\",\"n\":7}");
        assertThat(post("custom", hmac(body, "e-1"), body).status()).isEqualTo(202);
        assertThat(post("custom", hmac(body, "e-2"), body).status()).isEqualTo(200);
        assertThat(post("custom", hmac(body, "e-3"), utf8("{\"event\":\"paid\",\"n\":8}")).status())
                .as("signed for another body: a forgery, refused before dedupe").isEqualTo(401);
        byte[] other = utf8("{\"event\":\"paid\",\"n\":8}");
        assertThat(post("custom", hmac(other, "e-1"), other).status()).isEqualTo(202);
    }

    @Test
    void aHeaderKeyedSourceIsWhatTheOptionGuardsAgainst() {
        // the same capture against {header: X-Event-Id}: a fresh id makes it new every time
        byte[] body = utf8("{\"event\":\"paid\",\"n\":99}");
        assertThat(post("byheader", hmac(body, "h-1"), body).status()).isEqualTo(202);
        assertThat(post("byheader", hmac(body, "h-2"), body).status()).isEqualTo(202);
        assertThat(post("byheader", hmac(body, "h-1"), body).status()).isEqualTo(200);
    }

    @Test
    void aForgedRequestLeavesNoKeyBehind() throws Exception {
        byte[] body = utf8("{\"action\":\"closed\",\"number\":3}");
        Map<String, String> forged = new LinkedHashMap<>(github(body, "d-x"));
        forged.put("X-Hub-Signature-256", Signatures.github("not-the-secret", body));
        assertThat(post("gh", forged, body).status()).isEqualTo(401);
        assertThat(post("gh", github(body, "d-y"), body).status()).as("the genuine one is new").isEqualTo(202);
        assertThat(stored("gh", body)).hasSize(1);
    }

    @Test
    void emptyAndLargeBodiesHaveKeysToo() throws Exception {
        byte[] empty = new byte[0];
        assertThat(post("gh", github(empty, "e-1"), empty).status()).isEqualTo(202);
        assertThat(post("gh", github(empty, "e-2"), empty).status()).isEqualTo(200);

        byte[] large = new byte[1_000_000];
        java.util.Arrays.fill(large, (byte) 'z');
        assertThat(post("gh", github(large, "l-1"), large).status()).isEqualTo(202);
        assertThat(post("gh", github(large, "l-2"), large).status()).isEqualTo(200);
        large[large.length - 1] = 'y';
        assertThat(post("gh", github(large, "l-3"), large).status()).as("one byte differs").isEqualTo(202);
    }

    // ---------------------------------------------------------------- fleet scope: two nodes, one Redis

    @Test
    void aReplayOnAnotherNodeIsADuplicate(@TempDir Path fleetDir) throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            String yaml = """
                    http: {listen: "127.0.0.1:0"}
                    dedupe: {scope: fleet}
                    fleet: {redis: "%s", timeout_ms: 2000}
                    sources:
                      gh: {tenant: acme, verify: {scheme: github, secrets: ["%s"]}, dedupe: body_sha256}
                    """.formatted(redis.uri(), GH_SECRET);
            try (TestEdge a = TestEdge.start(fleetDir.resolve("a"), yaml); TestEdge b = TestEdge.start(fleetDir.resolve("b"), yaml)) {
                byte[] body = utf8("{\"action\":\"opened\",\"number\":10}");
                Http.Response first = Http.post(a.address, "/hooks/gh", github(body, "delivery-a"), body);
                assertThat(first.status()).as(first.toString()).isEqualTo(202);
                String id = json(first).get("id").asText();

                // until A's claim is settled in Redis, B answers 409 dedupe_pending; it never stores the hook
                AtomicReference<Http.Response> last = new AtomicReference<>();
                Eventually.until("B to stop answering 409", () -> {
                    last.set(Http.post(b.address, "/hooks/gh", github(body, "delivery-b"), body));
                    return last.get().status() != 409;
                });
                Http.Response onB = last.get();
                assertThat(onB.status()).as(onB.toString()).isEqualTo(200);
                assertThat(json(onB).get("id").asText()).isEqualTo(id);

                byte[] other = utf8("{\"action\":\"opened\",\"number\":11}");
                assertThat(Http.post(b.address, "/hooks/gh", github(other, "delivery-a"), other).status()).isEqualTo(202);

                String key = sha256Hex(body);
                long copies = StoredHooks.all(a.backends().store()).stream().filter(h -> key.equals(h.dedupeKey())).count()
                        + StoredHooks.all(b.backends().store()).stream().filter(h -> key.equals(h.dedupeKey())).count();
                assertThat(copies).isEqualTo(1);
            }
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.SigningKey;
import org.sluice.edge.delivery.StandardWebhooksCheck;
import org.sluice.testkit.HookReceiver;

/**
 * {@code POST /v1/destinations/{name}/secrets} on a real server with a real receiver and a
 * manual wall clock: a secret rotated in at runtime signs the next attempt without a
 * restart; during the overlap the receiver gets both signatures and a receiver holding
 * either secret accepts (the Standard Webhooks check); past the overlap only the new one
 * signs; the rotation survives a restart; the Ed25519 key's {@code v1a} signature verifies
 * with the published {@code whpk_} key (BouncyCastle); no answer and no audit record holds
 * a secret.
 */
class SigningRotationEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String OLD = "whsec_b2xkLXNlY3JldC1mb3ItZTJl";
    private static final String NEW = "whsec_bmV3LXNlY3JldC1mb3ItZTJl";
    private static final long HOUR_MS = 3_600_000;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);

    private String config(HookReceiver receiver, SigningKey.Ed25519 ed) {
        return """
                http: {listen: "127.0.0.1:0"}
                destinations:
                  app:
                    url: "%s"
                    signing: {scheme: standard_webhooks, secret: "%s", ed25519_key: "%s"}
                  plain: {url: "%s"}
                sources:
                  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app]}
                """.formatted(receiver.uri("/app"), OLD, ed.secret(), receiver.uri("/plain"));
    }

    private TestEdge start(HookReceiver receiver, SigningKey.Ed25519 ed) {
        return TestEdge.startWith(dir, config(receiver, ed), b -> b.epochMillis(wall::get));
    }

    private Http.Response admin(TestEdge edge, String method, String path, String body, boolean withToken) {
        String token;
        try {
            token = Files.readString(dir.resolve("admin.token")).strip();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        Map<String, String> headers = withToken ? Map.of("Authorization", "Bearer " + token, "X-Sluice-Actor", "alice")
                : Map.of();
        try (Http http = Http.connect(new java.net.InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort()))) {
            return http.request(method, path, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The entries of {@code webhook-signature} of version {@code version}. */
    private static List<String> entries(HookReceiver.Received got, String version) {
        List<String> out = new ArrayList<>();
        for (String e : got.header("webhook-signature").split(" ")) {
            if (e.startsWith(version + ",")) {
                out.add(e.substring(version.length() + 1));
            }
        }
        return out;
    }

    /**
     * Whether a receiver holding {@code secret} accepts the delivery, asked two ways that must
     * agree: the tests' own check, and the Standard Webhooks project's Java library (its
     * {@code sign} for the delivery's id, timestamp and body must be one of the header's
     * entries; its {@code verify} is not used because it compares the timestamp with the
     * system clock, and this test runs on a manual one).
     */
    private static boolean accepts(String secret, HookReceiver.Received got) {
        String ts = got.header("webhook-timestamp");
        boolean ours = new StandardWebhooksCheck(secret, 300).genuine(got.header("webhook-id"), ts,
                got.header("webhook-signature"), got.body(), Long.parseLong(ts));
        String expected;
        try {
            expected = new com.standardwebhooks.Webhook(secret).sign(got.header("webhook-id"), Long.parseLong(ts),
                    new String(got.body(), StandardCharsets.UTF_8));
        } catch (com.standardwebhooks.exceptions.WebhookSigningException e) {
            throw new AssertionError(e);
        }
        boolean reference = List.of(got.header("webhook-signature").split(" ")).contains(expected);
        assertThat(reference).as("the Standard Webhooks library agrees with the tests' own check").isEqualTo(ours);
        return reference;
    }

    private static boolean ed25519Accepts(String publicKey, HookReceiver.Received got) {
        byte[] raw = Base64.getDecoder().decode(publicKey.substring("whpk_".length()));
        byte[] content = (got.header("webhook-id") + "." + got.header("webhook-timestamp") + ".")
                .getBytes(StandardCharsets.UTF_8);
        for (String signature : entries(got, "v1a")) {
            Ed25519Signer verifier = new Ed25519Signer();
            verifier.init(false, new Ed25519PublicKeyParameters(raw, 0));
            verifier.update(content, 0, content.length);
            verifier.update(got.body(), 0, got.body().length);
            if (verifier.verifySignature(Base64.getDecoder().decode(signature))) {
                return true;
            }
        }
        return false;
    }

    private HookReceiver.Received deliverOne(TestEdge edge, HookReceiver receiver, int n) throws Exception {
        Http.Response r = edge.post("/hooks/gh", Map.of(), "{\"n\":" + n + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String id = JSON.readTree(r.body()).get("id").asText();
        List<HookReceiver.Received> all = receiver.awaitRequests(n, WAIT);
        HookReceiver.Received got = all.get(n - 1);
        assertThat(got.header("webhook-id")).isEqualTo(id);
        assertThat(Long.parseLong(got.header("webhook-timestamp"))).isEqualTo(wall.get() / 1000);
        return got;
    }

    private static void assertNoSecretIn(String text, String... secrets) {
        for (String s : secrets) {
            assertThat(text).doesNotContain(s).doesNotContain(s.substring(s.indexOf('_') + 1));
        }
    }

    @Test
    void aRotatedSecretSignsBesideTheOldOneUntilTheOverlapEndsAndSurvivesARestart() throws Exception {
        SigningKey.Ed25519 ed = SigningKey.Ed25519.generate();
        try (HookReceiver receiver = HookReceiver.start()) {
            try (TestEdge edge = start(receiver, ed)) {
                // the token is required, as on every admin route
                assertThat(admin(edge, "POST", "/v1/destinations/app/secrets", "{\"secret\":\"" + NEW + "\"}", false).status())
                        .isEqualTo(401);

                // what the destination signs with: its configured keys, and the public key receivers verify v1a with
                Http.Response listed = admin(edge, "GET", "/v1/destinations/app/secrets", null, true);
                assertThat(listed.status()).as(listed.body()).isEqualTo(200);
                JsonNode keys = JSON.readTree(listed.body()).get("keys");
                assertThat(keys).hasSize(2);
                assertThat(keys.get(0).get("kind").asText()).isEqualTo("hmac");
                assertThat(keys.get(0).get("fingerprint").asText()).isEqualTo(SigningKey.fingerprintOf(OLD));
                assertThat(keys.get(1).get("public_key").asText()).isEqualTo(ed.publicKey());
                assertNoSecretIn(listed.body(), OLD, ed.secret());

                HookReceiver.Received before = deliverOne(edge, receiver, 1);
                assertThat(entries(before, "v1")).hasSize(1);
                assertThat(accepts(OLD, before)).isTrue();
                assertThat(accepts(NEW, before)).isFalse();
                assertThat(ed25519Accepts(ed.publicKey(), before)).isTrue();

                // rotation: the new secret signs from the next attempt, the old one for one more hour
                Http.Response rotated = admin(edge, "POST", "/v1/destinations/app/secrets",
                        "{\"secret\":\"" + NEW + "\",\"overlap_seconds\":3600}", true);
                assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
                JsonNode after = JSON.readTree(rotated.body()).get("keys");
                assertThat(after).hasSize(3);
                assertThat(after.get(0).get("signs_until").asText()).isEqualTo("2027-01-15T09:00:00.000Z");
                assertThat(after.get(2).get("origin").asText()).isEqualTo("rotated");
                assertThat(after.get(2).get("signs_until").isNull()).isTrue();
                assertNoSecretIn(rotated.body(), OLD, NEW, ed.secret());

                HookReceiver.Received during = deliverOne(edge, receiver, 2);
                assertThat(entries(during, "v1")).hasSize(2);
                assertThat(accepts(OLD, during)).as("a receiver still on the old secret").isTrue();
                assertThat(accepts(NEW, during)).as("a receiver already on the new secret").isTrue();
                assertThat(ed25519Accepts(ed.publicKey(), during)).as("the Ed25519 key was not rotated").isTrue();

                wall.addAndGet(HOUR_MS); // the overlap ends
                HookReceiver.Received past = deliverOne(edge, receiver, 3);
                assertThat(entries(past, "v1")).hasSize(1);
                assertThat(accepts(OLD, past)).isFalse();
                assertThat(accepts(NEW, past)).isTrue();

                // audited by its actor, naming keys by fingerprint only
                Http.Response audit = admin(edge, "GET", "/v1/audit?limit=5", null, true);
                JsonNode record = JSON.readTree(audit.body()).get("audit").get(0);
                assertThat(record.get("action").asText()).isEqualTo("rotate_secret");
                assertThat(record.get("actor").asText()).isEqualTo("alice");
                assertThat(record.get("after").get("destination").asText()).isEqualTo("app");
                assertThat(record.get("after").get("added").asText()).isEqualTo("hmac " + SigningKey.fingerprintOf(NEW));
                assertThat(record.get("after").get("retired").get(SigningKey.fingerprintOf(OLD)).asText())
                        .isEqualTo("2027-01-15T09:00:00.000Z");
                assertNoSecretIn(audit.body(), OLD, NEW, ed.secret());

                // refusals
                Http.Response bad = admin(edge, "POST", "/v1/destinations/app/secrets", "{\"secret\":\"s3cr3t-value\"}", true);
                assertThat(bad.status()).isEqualTo(400);
                assertThat(JSON.readTree(bad.body()).get("error").asText()).isEqualTo("invalid_secret");
                assertThat(bad.body()).doesNotContain("s3cr3t-value");
                Http.Response inUse = admin(edge, "POST", "/v1/destinations/app/secrets", "{\"secret\":\"" + NEW + "\"}", true);
                assertThat(inUse.status()).isEqualTo(409);
                assertThat(JSON.readTree(inUse.body()).get("error").asText()).isEqualTo("secret_in_use");
                assertThat(admin(edge, "POST", "/v1/destinations/plain/secrets", "{\"secret\":\"" + NEW + "\"}", true).status())
                        .isEqualTo(409);
                assertThat(admin(edge, "POST", "/v1/destinations/nope/secrets", "{\"secret\":\"" + NEW + "\"}", true).status())
                        .isEqualTo(404);
                assertThat(admin(edge, "POST", "/v1/destinations/app/secrets",
                        "{\"secret\":\"" + NEW + "\",\"overlap_seconds\":-1}", true).status()).isEqualTo(400);
                assertThat(admin(edge, "DELETE", "/v1/destinations/app/secrets", null, true).status()).isEqualTo(405);
            }
            // restarted with the same file, which still lists the old secret: the rotation holds
            try (TestEdge edge = start(receiver, ed)) {
                HookReceiver.Received restarted = deliverOne(edge, receiver, 4);
                assertThat(entries(restarted, "v1")).hasSize(1);
                assertThat(accepts(OLD, restarted)).isFalse();
                assertThat(accepts(NEW, restarted)).isTrue();
                assertThat(ed25519Accepts(ed.publicKey(), restarted)).isTrue();
            }
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.verify.Signatures;
import org.sluice.edge.verify.VerifySpec;

/**
 * Step 5 over HTTP, for every scheme: a valid signature, a tampered body, a wrong secret,
 * a rotated (second) secret, and, for timestamped schemes, stale and future timestamps.
 * The verifiers' own unit tests cover the full matrix; this proves the wiring.
 */
class VerificationEndToEndTest {

    @TempDir
    static Path dir;
    static TestEdge edge;

    @BeforeAll
    static void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  github:   {verify: {scheme: github, secrets: ["gh-old", "gh-new"]}}
                  stripe:   {verify: {scheme: stripe, secrets: ["whsec_old", "whsec_new"], tolerance_seconds: 300}}
                  shopify:  {verify: {scheme: shopify, secrets: ["sh-old", "sh-new"]}}
                  slack:    {verify: {scheme: slack, secrets: ["sl-old", "sl-new"]}}
                  standard_webhooks: {verify: {scheme: standard_webhooks, secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kLXNlY3JldC1mb3ItdGVzdHM="]}}
                  hmac:     {verify: {scheme: hmac, header: X-Sig, prefix: "v=", algorithm: sha512, encoding: base64, secrets: ["h-old", "h-new"]}}
                  none:     {verify: {scheme: none}}
                """);
    }

    @AfterAll
    static void stop() {
        edge.close();
    }

    static VerifySpec spec(String source) {
        return edge.server.config().sources().get(source).verify();
    }

    static Http.Response send(String source, Map<String, String> headers, byte[] body) {
        return Http.post(edge.address, "/hooks/" + source, headers, body);
    }

    static String reason(Http.Response r) throws Exception {
        assertThat(r.status()).as(r.toString()).isEqualTo(401);
        return json(r).get("reason").asText();
    }

    @ParameterizedTest
    @ValueSource(strings = {"github", "stripe", "shopify", "slack", "standard_webhooks", "hmac"})
    void everySchemeEndToEnd(String source) throws Exception {
        VerifySpec spec = spec(source);
        byte[] body = ("{\"id\":\"evt_" + source + "\",\"amount\":42}").getBytes(StandardCharsets.UTF_8);
        long now = System.currentTimeMillis() / 1000;
        String first = spec.secrets().get(0);
        String second = spec.secrets().get(1);

        assertThat(send(source, Signatures.headers(spec, first, body, now), body).status()).isEqualTo(202);
        assertThat(send(source, Signatures.headers(spec, second, body, now), body).status())
                .as("rotated secret").isEqualTo(202);

        byte[] tampered = body.clone();
        tampered[tampered.length - 2] = '3';
        assertThat(reason(send(source, Signatures.headers(spec, first, body, now), tampered))).isEqualTo("no_match");
        String wrongSecret = source.equals("standard_webhooks") ? "whsec_d3Jvbmctc2VjcmV0" : "not-a-secret";
        assertThat(reason(send(source, Signatures.headers(spec, wrongSecret, body, now), body))).isEqualTo("no_match");
        assertThat(reason(send(source, Map.of(), body))).isEqualTo("missing_signature");

        boolean timestamped = source.equals("stripe") || source.equals("slack") || source.equals("standard_webhooks");
        if (timestamped) {
            // 30 s past the 300 s tolerance, read afresh: on a loaded machine the sends above can
            // take seconds, and a timestamp 301 s ahead of a stale `now` would fall inside it.
            long later = System.currentTimeMillis() / 1000;
            assertThat(reason(send(source, Signatures.headers(spec, first, body, later - 330), body)))
                    .isEqualTo("timestamp_out_of_tolerance");
            assertThat(reason(send(source, Signatures.headers(spec, first, body, later + 330), body)))
                    .isEqualTo("timestamp_out_of_tolerance");
        }
    }

    @org.junit.jupiter.api.Test
    void aStandardWebhooksListWithABrokenEntryBesideAGoodOneIsAccepted() throws Exception {
        VerifySpec spec = spec("standard_webhooks");
        byte[] body = "{\"type\":\"list.check\"}".getBytes(StandardCharsets.UTF_8);
        long now = System.currentTimeMillis() / 1000;
        Map<String, String> signed = Signatures.headers(spec, spec.secrets().get(0), body, now, "msg_list_1");
        String good = signed.get("webhook-signature");
        String wrongLength = "v1,c2l4dGVlbi1ieXRlLW1hYw==";

        Map<String, String> h = new java.util.LinkedHashMap<>(signed);
        h.put("webhook-signature", wrongLength + " v1,not*base64! nocomma " + good);
        assertThat(send("standard_webhooks", h, body).status()).isEqualTo(202);

        h.put("webhook-signature", wrongLength);
        assertThat(reason(send("standard_webhooks", h, body))).isEqualTo("malformed_signature");

        // more entries than the verifier examines (33 x 48 bytes: well inside max_header_bytes)
        h.put("webhook-signature", (good + " ").repeat(33).trim());
        assertThat(reason(send("standard_webhooks", h, body))).isEqualTo("malformed_signature");
    }

    @org.junit.jupiter.api.Test
    void schemeNoneAcceptsUnsignedHooks() {
        assertThat(send("none", Map.of(), "{}".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(202);
    }
}

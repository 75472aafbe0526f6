package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every scheme against the cases a sender (honest or not) can produce. */
class SchemeVerificationTest {

    static final long NOW = 1_764_676_800L;
    static final int TOLERANCE = 300;
    static final byte[] BODY = "{\"id\":\"evt_1\",\"amount\":4200}".getBytes(StandardCharsets.UTF_8);
    static final byte[] TAMPERED = "{\"id\":\"evt_1\",\"amount\":9999}".getBytes(StandardCharsets.UTF_8);

    static final String SW_1 = "whsec_" + java.util.Base64.getEncoder().encodeToString("first-key-0123456789abcd".getBytes(StandardCharsets.UTF_8));
    static final String SW_2 = "whsec_" + java.util.Base64.getEncoder().encodeToString("second-key-0123456789abc".getBytes(StandardCharsets.UTF_8));
    static final String SW_3 = "whsec_" + java.util.Base64.getEncoder().encodeToString("third-key-0123456789abcd".getBytes(StandardCharsets.UTF_8));

    /** One spec per signed scheme, each with three secrets: the last one is the current one. */
    static Stream<VerifySpec> signedSchemes() {
        List<String> plain = List.of("old-secret-1", "old-secret-2", "current-secret");
        return Stream.of(
                spec("github", plain),
                spec("stripe", List.of("whsec_old1", "whsec_old2", "whsec_current")),
                spec("shopify", plain),
                spec("slack", plain),
                spec("standard_webhooks", List.of(SW_1, SW_2, SW_3)),
                new VerifySpec("hmac", plain, TOLERANCE, "X-Signature", "sha256=", "sha256", "hex"),
                new VerifySpec("hmac", plain, TOLERANCE, "X-Signature", null, "sha512", "base64"),
                new VerifySpec("hmac", plain, TOLERANCE, "X-Sig-1", "", "sha1", "hex"));
    }

    static Stream<VerifySpec> timestampedSchemes() {
        return signedSchemes().filter(s -> List.of("stripe", "slack", "standard_webhooks").contains(s.scheme()));
    }

    static VerifySpec spec(String scheme, List<String> secrets) {
        return new VerifySpec(scheme, secrets, TOLERANCE, null, null, null, null);
    }

    static VerifyOutcome verify(VerifySpec spec, Map<String, String> headers, byte[] body, long now) {
        return Verifiers.create(spec, "sources.s.verify").verify(TestHeaders.of(headers), body, now);
    }

    static String current(VerifySpec spec) {
        return spec.secrets().get(spec.secrets().size() - 1);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void validSignatureIsAccepted(VerifySpec spec) {
        assertThat(verify(spec, Signatures.headers(spec, current(spec), BODY, NOW), BODY, NOW)).isEqualTo(OK);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void tamperedBodyIsNoMatch(VerifySpec spec) {
        assertThat(verify(spec, Signatures.headers(spec, current(spec), BODY, NOW), TAMPERED, NOW)).isEqualTo(NO_MATCH);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void wrongSecretIsNoMatch(VerifySpec spec) {
        String wrong = spec.scheme().equals("standard_webhooks")
                ? "whsec_" + java.util.Base64.getEncoder().encodeToString("not-any-configured-key!!".getBytes(StandardCharsets.UTF_8))
                : "not-any-configured-secret";
        assertThat(verify(spec, Signatures.headers(spec, wrong, BODY, NOW), BODY, NOW)).isEqualTo(NO_MATCH);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void everyRotatedSecretIsAccepted(VerifySpec spec) {
        for (String secret : spec.secrets()) {
            assertThat(verify(spec, Signatures.headers(spec, secret, BODY, NOW), BODY, NOW)).as(secret).isEqualTo(OK);
        }
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void secondOfSeveralSecretsMatches(VerifySpec spec) {
        // Only the second of the three configured secrets signed this request.
        assertThat(verify(spec, Signatures.headers(spec, spec.secrets().get(1), BODY, NOW), BODY, NOW)).isEqualTo(OK);
        VerifySpec withoutSecond = new VerifySpec(spec.scheme(), List.of(spec.secrets().get(0), spec.secrets().get(2)),
                spec.toleranceSeconds(), spec.header(), spec.prefix(), spec.algorithm(), spec.encoding());
        assertThat(verify(withoutSecond, Signatures.headers(spec, spec.secrets().get(1), BODY, NOW), BODY, NOW)).isEqualTo(NO_MATCH);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void noHeadersIsMissingSignature(VerifySpec spec) {
        assertThat(verify(spec, Map.of(), BODY, NOW)).isEqualTo(MISSING_SIGNATURE);
    }

    @ParameterizedTest @MethodSource("signedSchemes")
    void headerNamesAreMatchedWhateverTheirCase(VerifySpec spec) {
        Map<String, String> upper = new java.util.HashMap<>();
        Signatures.headers(spec, current(spec), BODY, NOW).forEach((k, v) -> upper.put(k.toUpperCase(java.util.Locale.ROOT), v));
        assertThat(verify(spec, upper, BODY, NOW)).isEqualTo(OK);
    }

    @ParameterizedTest @MethodSource("timestampedSchemes")
    void staleTimestampIsOutOfTolerance(VerifySpec spec) {
        long signedAt = NOW - TOLERANCE - 1;
        assertThat(verify(spec, Signatures.headers(spec, current(spec), BODY, signedAt), BODY, NOW))
                .isEqualTo(TIMESTAMP_OUT_OF_TOLERANCE);
    }

    @ParameterizedTest @MethodSource("timestampedSchemes")
    void futureTimestampIsOutOfTolerance(VerifySpec spec) {
        long signedAt = NOW + TOLERANCE + 1;
        assertThat(verify(spec, Signatures.headers(spec, current(spec), BODY, signedAt), BODY, NOW))
                .isEqualTo(TIMESTAMP_OUT_OF_TOLERANCE);
    }

    @ParameterizedTest @MethodSource("timestampedSchemes")
    void timestampsExactlyAtTheToleranceAreAccepted(VerifySpec spec) {
        for (long signedAt : new long[] {NOW - TOLERANCE, NOW + TOLERANCE}) {
            assertThat(verify(spec, Signatures.headers(spec, current(spec), BODY, signedAt), BODY, NOW)).isEqualTo(OK);
        }
    }

    @ParameterizedTest @MethodSource("timestampedSchemes")
    void toleranceIsCheckedBeforeAnyMac(VerifySpec spec) {
        // A stale forgery is refused for its age: the answer does not depend on the MAC.
        Map<String, String> forged = Signatures.headers(spec, spec.scheme().equals("standard_webhooks")
                ? "whsec_Zm9yZ2VkLWtleS1mb3JnZWQta2V5" : "forged", BODY, NOW - 10 * TOLERANCE);
        assertThat(verify(spec, forged, TAMPERED, NOW)).isEqualTo(TIMESTAMP_OUT_OF_TOLERANCE);
    }

    @Test
    void toleranceIsConfigurable() {
        VerifySpec tight = new VerifySpec("stripe", List.of("k"), 5, null, null, null, null);
        assertThat(verify(tight, Signatures.headers(tight, "k", BODY, NOW - 5), BODY, NOW)).isEqualTo(OK);
        assertThat(verify(tight, Signatures.headers(tight, "k", BODY, NOW - 6), BODY, NOW)).isEqualTo(TIMESTAMP_OUT_OF_TOLERANCE);
    }

    @Test
    void noneAcceptsAnything() {
        VerifySpec none = spec("none", List.of());
        assertThat(verify(none, Map.of(), TAMPERED, 0)).isEqualTo(OK);
        assertThat(verify(none, Map.of("X-Hub-Signature-256", "garbage"), BODY, NOW)).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- github

    @Test
    void githubEmptyHeaderIsMissing() {
        assertThat(verify(spec("github", List.of("k")), Map.of("X-Hub-Signature-256", ""), BODY, NOW)).isEqualTo(MISSING_SIGNATURE);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",            // no prefix
            "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",       // wrong prefix
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1",      // odd length
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e",       // too short
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1700",   // too long
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043ezz",     // not hex
            "sha256=",
    })
    void githubGarbledHeaderIsMalformed(String value) {
        assertThat(verify(spec("github", List.of("k")), Map.of("X-Hub-Signature-256", value), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void githubAcceptsUppercaseHex() {
        VerifySpec spec = spec("github", List.of("k"));
        String sig = Signatures.github("k", BODY);
        assertThat(verify(spec, Map.of("X-Hub-Signature-256", "sha256=" + sig.substring(7).toUpperCase(java.util.Locale.ROOT)), BODY, NOW))
                .isEqualTo(OK);
    }

    @Test
    void githubIgnoresTheSha1Header() {
        assertThat(verify(spec("github", List.of("k")), Map.of("X-Hub-Signature", "sha1=0000"), BODY, NOW)).isEqualTo(MISSING_SIGNATURE);
    }

    // ---------------------------------------------------------------- shopify

    @ParameterizedTest
    @ValueSource(strings = {"not base64 at all!", "AAAA", "c2hvcnQ=", "sha256=" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="})
    void shopifyGarbledHeaderIsMalformed(String value) {
        assertThat(verify(spec("shopify", List.of("k")), Map.of("X-Shopify-Hmac-SHA256", value), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void shopifyAcceptsUnpaddedBase64() {
        String sig = Signatures.shopify("k", BODY);
        assertThat(sig).endsWith("=");
        assertThat(verify(spec("shopify", List.of("k")), Map.of("X-Shopify-Hmac-SHA256", sig.replace("=", "")), BODY, NOW)).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- stripe

    @Test
    void stripeAcceptsAnyOfSeveralV1AndIgnoresV0() {
        VerifySpec spec = spec("stripe", List.of("whsec_current"));
        String good = Signatures.stripe("whsec_current", BODY, NOW).split(",v1=")[1];
        String other = Signatures.stripe("whsec_other", BODY, NOW).split(",v1=")[1];
        String header = "t=" + NOW + ",v1=" + other + ",v1=" + good + ",v0=" + other;
        assertThat(verify(spec, Map.of("Stripe-Signature", header), BODY, NOW)).isEqualTo(OK);
        assertThat(verify(spec, Map.of("Stripe-Signature", "v1=" + good + ", t=" + NOW), BODY, NOW)).as("order, spaces").isEqualTo(OK);
    }

    @Test
    void stripeWithOnlyV0IsNoMatch() {
        String other = Signatures.stripe("whsec_current", BODY, NOW).split(",v1=")[1];
        assertThat(verify(spec("stripe", List.of("whsec_current")), Map.of("Stripe-Signature", "t=" + NOW + ",v0=" + other), BODY, NOW))
                .isEqualTo(NO_MATCH);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "v1=aa",                                   // no t, short v1
            "t=abc,v1=%s",                             // t not a number
            "t=-1764676800,v1=%s",                     // signed t
            "t=,v1=%s",                                // empty t
            "t=1764676800,t=1764676800,v1=%s",         // two t
            "t=1764676800,v1=zz",                      // v1 not hex
            "t=1764676800,v1=%s,garbage",              // item without '='
            "t=1764676800,,v1=%s",                     // empty item
            "%s",                                      // bare hex
    })
    void stripeGarbledHeaderIsMalformed(String template) {
        String v1 = Signatures.stripe("whsec_current", BODY, NOW).split(",v1=")[1];
        String header = template.replace("%s", v1);
        assertThat(verify(spec("stripe", List.of("whsec_current")), Map.of("Stripe-Signature", header), BODY, NOW))
                .as(header).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void stripeWithoutV1IsNoMatch() {
        assertThat(verify(spec("stripe", List.of("whsec_current")), Map.of("Stripe-Signature", "t=" + NOW), BODY, NOW)).isEqualTo(NO_MATCH);
    }

    @Test
    void stripeRefusesMoreThanSixteenV1() {
        String v1 = Signatures.stripe("whsec_current", BODY, NOW).split(",v1=")[1];
        StringBuilder header = new StringBuilder("t=" + NOW);
        for (int i = 0; i < 16; i++) {
            header.append(",v1=").append(v1);
        }
        VerifySpec spec = spec("stripe", List.of("whsec_current"));
        assertThat(verify(spec, Map.of("Stripe-Signature", header.toString()), BODY, NOW)).isEqualTo(OK);
        assertThat(verify(spec, Map.of("Stripe-Signature", header + ",v1=" + v1), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void stripeSignsWithTheWholeWhsecString() {
        // Stripe's HMAC key is the secret string itself, prefix included.
        byte[] mac = HmacAlgorithm.SHA256.mac("whsec_abc".getBytes(StandardCharsets.UTF_8),
                (NOW + ".").getBytes(StandardCharsets.US_ASCII), BODY);
        String header = "t=" + NOW + ",v1=" + SignatureEncoding.toHex(mac);
        assertThat(verify(spec("stripe", List.of("whsec_abc")), Map.of("Stripe-Signature", header), BODY, NOW)).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- slack

    @Test
    void slackSignatureWithoutTimestampIsMalformed() {
        VerifySpec spec = spec("slack", List.of("k"));
        Map<String, String> h = Signatures.headers(spec, "k", BODY, NOW);
        TestHeaders headers = TestHeaders.of(h).without("X-Slack-Request-Timestamp");
        assertThat(Verifiers.create(spec, "p").verify(headers, BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1=%s", "%s", "v0=zz", "v0=", "v0=%sff"})
    void slackGarbledSignatureIsMalformed(String template) {
        VerifySpec spec = spec("slack", List.of("k"));
        String hex = Signatures.slack("k", BODY, NOW).substring(3);
        TestHeaders headers = TestHeaders.of("X-Slack-Signature", template.replace("%s", hex), "X-Slack-Request-Timestamp", Long.toString(NOW));
        assertThat(Verifiers.create(spec, "p").verify(headers, BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "soon", "1764676800.5", " 1764676800", "+1764676800", "1234567890123456"})
    void slackUnparsableTimestampIsMalformed(String ts) {
        VerifySpec spec = spec("slack", List.of("k"));
        TestHeaders headers = TestHeaders.of(Signatures.headers(spec, "k", BODY, NOW)).with("X-Slack-Request-Timestamp", ts);
        assertThat(Verifiers.create(spec, "p").verify(headers, BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    // ---------------------------------------------------------------- standard webhooks

    @Test
    void standardWebhooksSignatureWithoutIdOrTimestampIsMalformed() {
        VerifySpec spec = spec("standard_webhooks", List.of(SW_1));
        TestHeaders h = TestHeaders.of(Signatures.headers(spec, SW_1, BODY, NOW, "msg_1"));
        Verifier v = Verifiers.create(spec, "p");
        assertThat(v.verify(h, BODY, NOW)).isEqualTo(OK);
        assertThat(v.verify(h.without("webhook-id"), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(v.verify(h.without("webhook-timestamp"), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(v.verify(h.with("webhook-timestamp", "yesterday"), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void standardWebhooksIdIsSigned() {
        VerifySpec spec = spec("standard_webhooks", List.of(SW_1));
        TestHeaders h = TestHeaders.of(Signatures.headers(spec, SW_1, BODY, NOW, "msg_1"));
        assertThat(Verifiers.create(spec, "p").verify(h.with("webhook-id", "msg_2"), BODY, NOW)).isEqualTo(NO_MATCH);
    }

    @Test
    void standardWebhooksAcceptsAnyOfSeveralSignaturesAndIgnoresOtherVersions() {
        VerifySpec spec = spec("standard_webhooks", List.of(SW_2));
        String good = Signatures.standardWebhooks(SW_2, "msg_1", NOW, BODY);
        String other = Signatures.standardWebhooks(SW_1, "msg_1", NOW, BODY);
        TestHeaders h = TestHeaders.of("webhook-id", "msg_1", "webhook-timestamp", Long.toString(NOW),
                "webhook-signature", other + " v1a,c29tZXRoaW5nIGVsc2U= " + good);
        Verifier v = Verifiers.create(spec, "p");
        assertThat(v.verify(h, BODY, NOW)).isEqualTo(OK);
        assertThat(v.verify(h.with("webhook-signature", other + ", " + good), BODY, NOW)).as("joined header lines").isEqualTo(OK);
        assertThat(v.verify(h.with("webhook-signature", "v1a,c29tZXRoaW5nIGVsc2U="), BODY, NOW)).as("no v1").isEqualTo(NO_MATCH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"%s", "v1,", "v1,not-base64!", "v1,c2hvcnQ=", "garbage %s", "v2"})
    void standardWebhooksGarbledSignatureIsMalformed(String template) {
        VerifySpec spec = spec("standard_webhooks", List.of(SW_1));
        String b64 = Signatures.standardWebhooks(SW_1, "msg_1", NOW, BODY).substring(3);
        TestHeaders h = TestHeaders.of("webhook-id", "msg_1", "webhook-timestamp", Long.toString(NOW),
                "webhook-signature", template.replace("%s", b64));
        assertThat(Verifiers.create(spec, "p").verify(h, BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void standardWebhooksSecretWithoutPrefixIsReadAsBase64() {
        String bare = SW_1.substring("whsec_".length());
        VerifySpec spec = spec("standard_webhooks", List.of(bare));
        TestHeaders h = TestHeaders.of(Signatures.headers(spec, SW_1, BODY, NOW, "msg_1"));
        assertThat(Verifiers.create(spec, "p").verify(h, BODY, NOW)).isEqualTo(OK);
    }

    // ---------------------------------------------------------------- hmac (custom)

    @Test
    void hmacPrefixAbsentIsMalformed() {
        VerifySpec spec = new VerifySpec("hmac", List.of("s3cret"), TOLERANCE, "X-Signature", "sha256=", "sha256", "hex");
        String sig = Signatures.hmac("sha256", "hex", "", "s3cret", BODY);
        assertThat(verify(spec, Map.of("X-Signature", sig), BODY, NOW)).isEqualTo(MALFORMED_SIGNATURE);
        assertThat(verify(spec, Map.of("X-Signature", "sha256=" + sig), BODY, NOW)).isEqualTo(OK);
    }

    @Test
    void hmacDefaultsToSha256HexWithoutPrefix() {
        VerifySpec spec = new VerifySpec("hmac", List.of("s3cret"), TOLERANCE, "X-Signature", null, null, null);
        assertThat(verify(spec, Map.of("X-Signature", Signatures.hmac("sha256", "hex", null, "s3cret", BODY)), BODY, NOW)).isEqualTo(OK);
    }

    @Test
    void hmacSignatureOfAnotherAlgorithmIsMalformed() {
        // A sha1 MAC (20 bytes) presented to a sha256 source has the wrong length.
        VerifySpec spec = new VerifySpec("hmac", List.of("s3cret"), TOLERANCE, "X-Signature", null, "sha256", "hex");
        assertThat(verify(spec, Map.of("X-Signature", Signatures.hmac("sha1", "hex", null, "s3cret", BODY)), BODY, NOW))
                .isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void hmacEncodingIsEnforced() {
        VerifySpec spec = new VerifySpec("hmac", List.of("s3cret"), TOLERANCE, "X-Signature", null, "sha256", "base64");
        assertThat(verify(spec, Map.of("X-Signature", Signatures.hmac("sha256", "hex", null, "s3cret", BODY)), BODY, NOW))
                .isEqualTo(MALFORMED_SIGNATURE);
    }

    @Test
    void hmacIgnoresTimestamps() {
        VerifySpec spec = new VerifySpec("hmac", List.of("s3cret"), TOLERANCE, "X-Signature", null, null, null);
        assertThat(verify(spec, Map.of("X-Signature", Signatures.hmac("sha256", "hex", null, "s3cret", BODY)), BODY, 0)).isEqualTo(OK);
    }
}

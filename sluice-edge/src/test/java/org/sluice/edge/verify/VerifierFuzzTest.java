package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for every verifier: a scheme, its secrets and (for {@code hmac}) header,
 * prefix, algorithm and encoding, then hostile headers (the scheme's own names and
 * others, any value), any body and any clock reading, including the extremes of a long.
 * The contract: {@link Verifiers#create} either builds a verifier or refuses with an
 * {@link IllegalArgumentException}; a verifier always returns an outcome and never throws.
 * A GitHub signature computed here over the fuzzed body must verify.
 */
@Tag("fuzz")
class VerifierFuzzTest {

    private static final List<String> HEADER_NAMES = List.of(
            Verifiers.GITHUB_HEADER, Verifiers.SHOPIFY_HEADER, StripeVerifier.HEADER,
            SlackVerifier.SIGNATURE, SlackVerifier.TIMESTAMP, StandardWebhooksVerifier.ID,
            StandardWebhooksVerifier.TIMESTAMP, StandardWebhooksVerifier.SIGNATURE, "X-Signature");

    @FuzzTest(maxDuration = "30s")
    void verifiersAnswerEveryRequest(FuzzedDataProvider data) throws Exception {
        String scheme = data.pickValue(Verifiers.SCHEMES);
        List<String> secrets = new ArrayList<>();
        int count = data.consumeInt(scheme.equals(Verifiers.NONE) ? 0 : 1, 3);
        for (int i = 0; i < count; i++) {
            secrets.add(data.consumeBoolean() ? "whsec_c2VjcmV0LWtleS0x" : data.consumeString(24));
        }
        boolean hmac = scheme.equals(Verifiers.HMAC);
        VerifySpec spec = new VerifySpec(scheme, secrets, data.consumeInt(0, 100_000),
                hmac ? (data.consumeBoolean() ? "X-Signature" : data.consumeString(12)) : null,
                hmac ? data.consumeString(8) : null,
                hmac ? data.pickValue(List.of("sha256", "sha512", "sha1", "md5")) : null,
                hmac ? data.pickValue(List.of("hex", "base64", "base32")) : null);
        Verifier verifier;
        try {
            verifier = Verifiers.create(spec, "sources.fuzz.verify");
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).startsWith("sources.fuzz.verify.");
            return;
        }
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        int lines = data.consumeInt(0, 6);
        for (int i = 0; i < lines; i++) {
            String name = data.consumeBoolean() ? data.pickValue(HEADER_NAMES) : data.consumeString(16);
            headers.put(name, data.consumeString(160));
        }
        long now = data.consumeLong();
        byte[] body = data.consumeRemainingAsBytes();

        VerifyOutcome outcome = verifier.verify(headers::get, body, now);
        assertThat(outcome).isNotNull();

        if (scheme.equals(Verifiers.GITHUB)) {
            headers.put(Verifiers.GITHUB_HEADER, "sha256=" + hmacSha256Hex(secrets.get(secrets.size() - 1), body));
            assertThat(verifier.verify(headers::get, body, now)).isEqualTo(VerifyOutcome.OK);
        }
    }

    private static String hmacSha256Hex(String secret, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body)).toLowerCase(Locale.ROOT);
    }
}

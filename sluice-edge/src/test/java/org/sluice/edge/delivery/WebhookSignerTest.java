package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {

    private static final String PATH = "destinations.app.signing_secret";

    /*
     * Computed by hand, independently of Java:
     *   KEY=$(printf 'sluice-delivery-test-key-0123456' | xxd -p -c 256)
     *   printf 'msg_2Xq7.1700000000.{"event":"paid","amount":1250}' \
     *     | openssl dgst -sha256 -mac HMAC -macopt hexkey:$KEY -binary | base64
     * and the secret is "whsec_" + (printf 'sluice-delivery-test-key-0123456' | base64).
     */
    private static final String SECRET = "whsec_c2x1aWNlLWRlbGl2ZXJ5LXRlc3Qta2V5LTAxMjM0NTY=";
    private static final String BODY = "{\"event\":\"paid\",\"amount\":1250}";
    private static final String EXPECTED = "v1,cMd7VzRRNiT7R3TYbyJpomMhkSmNq6dsaiUBTXsmeVw=";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void signsTheKnownVectorComputedWithOpenssl() {
        assertThat(WebhookSigner.fromSecret(PATH, SECRET).signature("msg_2Xq7", 1_700_000_000L, bytes(BODY)))
                .isEqualTo(EXPECTED);
    }

    /*
     * The example of the scheme's documentation, recomputed the same way:
     *   KEY=$(printf 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' | base64 -d | xxd -p -c 256)
     *   printf 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' \
     *     | openssl dgst -sha256 -mac HMAC -macopt hexkey:$KEY -binary | base64
     */
    @Test
    void signsTheSchemeExampleAsOpensslDoes() {
        assertThat(WebhookSigner.fromSecret(PATH, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                .signature("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330L, bytes("{\"test\": 2432232314}")))
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void duringARotationEverySecretSignsAndEitherVerifies() {
        String next = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        WebhookSigner both = WebhookSigner.fromSecrets("destinations.app.signing.secrets", java.util.List.of(SECRET, next));
        String header = both.signature("msg_2Xq7", 1_700_000_000L, bytes(BODY));
        assertThat(header).isEqualTo(EXPECTED + " "
                + WebhookSigner.fromSecret(PATH, next).signature("msg_2Xq7", 1_700_000_000L, bytes(BODY)));
        assertThat(both.secretCount()).isEqualTo(2);
        for (String secret : java.util.List.of(SECRET, next)) {
            assertThat(new StandardWebhooksCheck(secret, 300).genuine("msg_2Xq7", "1700000000", header, bytes(BODY),
                    1_700_000_000L)).as("a receiver holding one of the secrets").isTrue();
        }
        assertThat(new StandardWebhooksCheck("whsec_b3RoZXI=", 300).genuine("msg_2Xq7", "1700000000", header, bytes(BODY),
                1_700_000_000L)).as("a receiver holding neither").isFalse();
    }

    @Test
    void aRotationListIsCheckedSecretBySecret() {
        String at = "destinations.app.signing.secrets";
        assertThat(catchThrowableOfType(SettingsException.class, () -> WebhookSigner.fromSecrets(at, java.util.List.of())).errors())
                .containsExactly(at + " must list 1 to 8 secrets, got 0");
        assertThat(catchThrowableOfType(SettingsException.class,
                () -> WebhookSigner.fromSecrets(at, java.util.List.of(SECRET, "hunter2"))).errors())
                .containsExactly(at + "[1] must be whsec_ followed by the base64 of the key, got a 7-character value that"
                        + " does not start with whsec_ (redacted: secrets are never printed)");
    }

    @Test
    void theIndependentCheckAgreesWithTheKnownVector() {
        StandardWebhooksCheck check = new StandardWebhooksCheck(SECRET, 300);
        assertThat(check.genuine("msg_2Xq7", "1700000000", EXPECTED, bytes(BODY), 1_700_000_010L)).isTrue();
        assertThat(check.genuine("msg_2Xq7", "1700000000", "v1a,x " + EXPECTED, bytes(BODY), 1_700_000_010L)).isTrue();
    }

    @Test
    void theIndependentCheckRefusesAnyChange() {
        StandardWebhooksCheck check = new StandardWebhooksCheck(SECRET, 300);
        long now = 1_700_000_000L;
        assertThat(check.genuine("msg_2Xq8", "1700000000", EXPECTED, bytes(BODY), now)).isFalse();
        assertThat(check.genuine("msg_2Xq7", "1700000001", EXPECTED, bytes(BODY), now)).isFalse();
        assertThat(check.genuine("msg_2Xq7", "1700000000", EXPECTED, bytes(BODY + " "), now)).isFalse();
        assertThat(check.genuine("msg_2Xq7", "1700000000", "v2" + EXPECTED.substring(2), bytes(BODY), now)).isFalse();
        assertThat(check.genuine("msg_2Xq7", "1700000000", EXPECTED, bytes(BODY), now + 301)).isFalse();
        StandardWebhooksCheck otherKey = new StandardWebhooksCheck("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 300);
        assertThat(otherKey.genuine("msg_2Xq7", "1700000000", EXPECTED, bytes(BODY), now)).isFalse();
    }

    @Test
    void theHandWrittenHmacMatchesRfc4231TestCase2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?"
        byte[] mac = StandardWebhooksCheck.hmacSha256(bytes("Jefe"), bytes("what do ya want for nothing?"));
        assertThat(java.util.HexFormat.of().formatHex(mac))
                .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    @Test
    void aSecretWithoutPaddingIsRead() {
        String unpadded = SECRET.substring(0, SECRET.length() - 1);
        assertThat(WebhookSigner.fromSecret(PATH, unpadded).signature("msg_2Xq7", 1_700_000_000L, bytes(BODY)))
                .isEqualTo(EXPECTED);
    }

    @Test
    void aSecretWithoutThePrefixIsAConfigErrorThatNamesThePathButNotTheSecret() {
        String raw = "c2x1aWNlLWRlbGl2ZXJ5LXRlc3Qta2V5LTAxMjM0NTY=";
        assertThatThrownBy(() -> WebhookSigner.fromSecret(PATH, raw))
                .isInstanceOf(SettingsException.class)
                .hasMessage(PATH + " must be whsec_ followed by the base64 of the key, got a 44-character value"
                        + " that does not start with whsec_ (redacted: secrets are never printed)")
                .message().doesNotContain(raw);
    }

    @Test
    void aSecretThatIsNotBase64IsAConfigError() {
        assertThatThrownBy(() -> WebhookSigner.fromSecret(PATH, "whsec_not base64!"))
                .isInstanceOf(SettingsException.class)
                .hasMessage(PATH + " must be whsec_ followed by the base64 of the key, got a 17-character value"
                        + " whose key part is not base64 (redacted: secrets are never printed)");
    }

    @Test
    void anEmptyKeyAndAMissingSecretAreConfigErrors() {
        assertThatThrownBy(() -> WebhookSigner.fromSecret(PATH, "whsec_"))
                .isInstanceOf(SettingsException.class).hasMessageStartingWith(PATH + " must be whsec_")
                .hasMessageContaining("got an empty key");
        assertThatThrownBy(() -> WebhookSigner.fromSecret(PATH, null))
                .isInstanceOf(SettingsException.class).hasMessage(PATH + " must be a string whsec_<base64 key>, got nothing");
    }

    @Test
    void signingRefusesAMissingIdOrANegativeTimestamp() {
        WebhookSigner signer = WebhookSigner.fromSecret(PATH, SECRET);
        assertThatThrownBy(() -> signer.signature("", 1L, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> signer.signature("m", -1L, new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }
}

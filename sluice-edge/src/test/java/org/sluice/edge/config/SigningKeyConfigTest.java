package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.SigningKey;
import org.sluice.edge.delivery.WebhookSigner;

/**
 * The Ed25519 keys of a destination's {@code signing} block: {@code ed25519_key} and
 * {@code ed25519_key_file}, beside or instead of the HMAC secret; every bad value a boot
 * error naming its key path and never the key.
 */
class SigningKeyConfigTest {

    private static final String HMAC = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=";

    @TempDir
    Path dir;

    private static SluiceConfig load(String signing) {
        return ConfigLoader.parse("""
                destinations:
                  app: {url: "http://h.test/", signing: %s}
                sources:
                  gh: {verify: {scheme: none}, deliver_to: [app]}
                """.formatted(signing), Map.of(), "test");
    }

    private static List<String> problems(String signing) {
        return catchThrowableOfType(ConfigException.class, () -> load(signing)).errors();
    }

    private static WebhookSigner signer(SluiceConfig c) {
        return c.destinations().get("app").headers().signer().orElseThrow();
    }

    @Test
    void anEd25519KeyAloneOrBesideTheHmacSecretSigns() {
        SigningKey.Ed25519 key = SigningKey.Ed25519.generate();
        WebhookSigner alone = signer(load("{scheme: standard_webhooks, ed25519_key: \"" + key.secret() + "\"}"));
        assertThat(alone.signature("m", 1, new byte[0])).isEqualTo(WebhookSigner.of(List.of(key)).signature("m", 1, new byte[0]));
        WebhookSigner both = signer(load("{scheme: standard_webhooks, secret: \"" + HMAC + "\", ed25519_key: \"" + key.secret() + "\"}"));
        assertThat(both.signature("m", 1, new byte[0]).split(" ")).hasSize(2)
                .satisfies(e -> assertThat(e[0]).startsWith("v1,"), e -> assertThat(e[1]).startsWith("v1a,"));
    }

    @Test
    void aPemKeyFileIsRead() throws Exception {
        var pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path pem = dir.resolve("app-ed25519.pem");
        Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        WebhookSigner s = signer(load("{scheme: standard_webhooks, ed25519_key_file: \"" + pem + "\"}"));
        SigningKey key = s.configured().get(0);
        assertThat(key).isInstanceOf(SigningKey.Ed25519.class);
        byte[] x509 = pair.getPublic().getEncoded();
        assertThat(((SigningKey.Ed25519) key).publicKey()).isEqualTo("whpk_" + Base64.getEncoder().encodeToString(
                java.util.Arrays.copyOfRange(x509, x509.length - 32, x509.length)));
    }

    @Test
    void badEd25519SettingsFailTheBootNamingTheKeyPathButNeverTheKey() throws Exception {
        String shortKey = "whsk_" + Base64.getEncoder().encodeToString("too-short".getBytes(StandardCharsets.US_ASCII));
        assertThat(problems("{scheme: standard_webhooks, ed25519_key: \"" + shortKey + "\"}")).singleElement().asString()
                .startsWith("destinations.app.signing.ed25519_key must be whsk_ followed by the base64 of a 32-byte Ed25519 seed")
                .doesNotContain(shortKey.substring(5));
        assertThat(problems("{scheme: standard_webhooks, ed25519_key: \"" + SigningKey.Ed25519.generate().secret()
                + "\", ed25519_key_file: \"/x\"}"))
                .containsExactly("destinations.app.signing.ed25519_key and ed25519_key_file are both set: write one");
        Path missing = dir.resolve("missing.pem");
        assertThat(problems("{scheme: standard_webhooks, ed25519_key_file: \"" + missing + "\"}")).singleElement().asString()
                .isEqualTo("destinations.app.signing.ed25519_key_file must be a readable file holding an Ed25519 private key,"
                        + " got \"" + missing + "\" (no such file)");
        Path rsa = dir.resolve("rsa.pem");
        Files.writeString(rsa, "-----BEGIN PRIVATE KEY-----\n" + Base64.getEncoder().encodeToString(
                KeyPairGenerator.getInstance("RSA").generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        assertThat(problems("{scheme: standard_webhooks, ed25519_key_file: \"" + rsa + "\"}")).singleElement().asString()
                .startsWith("destinations.app.signing.ed25519_key_file must hold an Ed25519 private key, got a PEM private key"
                        + " that is not one");
        Path big = dir.resolve("big.pem");
        Files.write(big, new byte[70_000]);
        assertThat(problems("{scheme: standard_webhooks, ed25519_key_file: \"" + big + "\"}")).singleElement().asString()
                .isEqualTo("destinations.app.signing.ed25519_key_file must be a key file of at most 65536 bytes, got \""
                        + big + "\" (70000 bytes)");
        assertThat(problems("{scheme: standard_webhooks}")).singleElement().asString()
                .isEqualTo("destinations.app.signing.secret is required: whsec_ followed by the base64 of the key (or secrets:"
                        + " a list of them, while rotating; or ed25519_key / ed25519_key_file for v1a signatures)");
    }
}

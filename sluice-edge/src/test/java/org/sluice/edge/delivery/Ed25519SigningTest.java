package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;

/**
 * {@code v1a} signatures: made by the JDK's Ed25519 from a {@code whsk_} key, and checked by
 * two verifiers that share nothing with the signer but the public key it publishes
 * ({@code whpk_}): the JDK's {@code Signature("Ed25519")} over a public key rebuilt from the
 * raw bytes, and BouncyCastle's {@link Ed25519Signer}, an implementation of its own. Both
 * verify over the exact signed content {@code "<id>.<timestamp>.<body>"}.
 */
class Ed25519SigningTest {

    /* RFC 8032, section 7.1, TEST 1: the secret key (seed) and the public key it makes. */
    private static final String RFC_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    private static final String RFC_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    /* The X.509 prefix of an Ed25519 public key (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112, BIT STRING. */
    private static final String X509_PREFIX = "302a300506032b6570032100";

    private static final String ID = "msg_2Xq7";
    private static final long TS = 1_700_000_000L;
    private static final byte[] BODY = "{\"event\":\"paid\",\"amount\":1250,\"name\":\"Zoë\"}".getBytes(StandardCharsets.UTF_8);

    private static String whsk(String hexSeed) {
        return "whsk_" + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(hexSeed));
    }

    private static byte[] signedContent() {
        byte[] prefix = (ID + "." + TS + ".").getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[prefix.length + BODY.length];
        System.arraycopy(prefix, 0, all, 0, prefix.length);
        System.arraycopy(BODY, 0, all, prefix.length, BODY.length);
        return all;
    }

    /** The raw public key a receiver is given: the base64 after {@code whpk_}. */
    private static byte[] published(SigningKey.Ed25519 key) {
        assertThat(key.publicKey()).startsWith("whpk_");
        return Base64.getDecoder().decode(key.publicKey().substring(5));
    }

    private static boolean jdkVerifies(byte[] rawPublic, byte[] content, byte[] signature) throws Exception {
        PublicKey pub = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(
                HexFormat.of().parseHex(X509_PREFIX + HexFormat.of().formatHex(rawPublic))));
        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(pub);
        verifier.update(content);
        return verifier.verify(signature);
    }

    private static boolean bouncyCastleVerifies(byte[] rawPublic, byte[] content, byte[] signature) {
        Ed25519Signer verifier = new Ed25519Signer();
        verifier.init(false, new Ed25519PublicKeyParameters(rawPublic, 0));
        verifier.update(content, 0, content.length);
        return verifier.verifySignature(signature);
    }

    /** The one {@code v1a} entry of a {@code webhook-signature} value, decoded. */
    private static byte[] v1a(String header) {
        List<String> entries = new ArrayList<>();
        for (String e : header.split(" ")) {
            if (e.startsWith("v1a,")) {
                entries.add(e.substring(4));
            }
        }
        assertThat(entries).hasSize(1);
        return Base64.getDecoder().decode(entries.get(0));
    }

    @Test
    void theRfc8032SeedGivesTheRfc8032PublicKey() {
        SigningKey.Ed25519 key = SigningKey.Ed25519.parse("k", whsk(RFC_SEED));
        assertThat(HexFormat.of().formatHex(published(key))).isEqualTo(RFC_PUBLIC);
        assertThat(key.version()).isEqualTo("v1a");
        assertThat(key.kind()).isEqualTo("ed25519");
    }

    @Test
    void aV1aSignatureVerifiesWithTheJdkAndWithBouncyCastleOverIdTimestampAndBody() throws Exception {
        SigningKey.Ed25519 key = SigningKey.Ed25519.parse("k", whsk(RFC_SEED));
        String header = WebhookSigner.of(List.of(key)).signature(ID, TS, BODY);
        assertThat(header).startsWith("v1a,").doesNotContain(" ");
        byte[] signature = v1a(header);
        assertThat(signature).hasSize(64);
        byte[] raw = published(key);
        assertThat(jdkVerifies(raw, signedContent(), signature)).isTrue();
        assertThat(bouncyCastleVerifies(raw, signedContent(), signature)).isTrue();
        // Ed25519 is deterministic: BouncyCastle signing with the same seed makes the same bytes
        Ed25519Signer bc = new Ed25519Signer();
        bc.init(true, new Ed25519PrivateKeyParameters(HexFormat.of().parseHex(RFC_SEED), 0));
        byte[] content = signedContent();
        bc.update(content, 0, content.length);
        assertThat(bc.generateSignature()).isEqualTo(signature);
    }

    @Test
    void anyChangeToTheSignedContentFailsBothVerifiers() throws Exception {
        SigningKey.Ed25519 key = SigningKey.Ed25519.generate();
        byte[] signature = v1a(WebhookSigner.of(List.of(key)).signature(ID, TS, BODY));
        byte[] raw = published(key);
        for (String changed : List.of(ID + "." + (TS + 1) + ".", "msg_2Xq8." + TS + ".", ID + "." + TS)) {
            byte[] prefix = changed.getBytes(StandardCharsets.UTF_8);
            byte[] content = new byte[prefix.length + BODY.length];
            System.arraycopy(prefix, 0, content, 0, prefix.length);
            System.arraycopy(BODY, 0, content, prefix.length, BODY.length);
            assertThat(jdkVerifies(raw, content, signature)).as(changed).isFalse();
            assertThat(bouncyCastleVerifies(raw, content, signature)).as(changed).isFalse();
        }
        byte[] otherKey = published(SigningKey.Ed25519.generate());
        assertThat(bouncyCastleVerifies(otherKey, signedContent(), signature)).isFalse();
    }

    @Test
    void hmacAndEd25519SignSideBySideAndEachReceiverFindsItsOwn() throws Exception {
        String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        SigningKey.Ed25519 ed = SigningKey.Ed25519.parse("k", whsk(RFC_SEED));
        String header = WebhookSigner.of(List.of(SigningKey.Hmac.parse("s", secret), ed)).signature(ID, TS, BODY);
        assertThat(header.split(" ")).hasSize(2);
        assertThat(header).startsWith(WebhookSigner.fromSecret("s", secret).signature(ID, TS, BODY) + " v1a,");
        assertThat(new StandardWebhooksCheck(secret, 300).genuine(ID, Long.toString(TS), header, BODY, TS)).isTrue();
        assertThat(bouncyCastleVerifies(published(ed), signedContent(), v1a(header))).isTrue();
    }

    @Test
    void theSixtyFourByteFormIsReadAndItsPublicHalfChecked() {
        String both = "whsk_" + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(RFC_SEED + RFC_PUBLIC));
        assertThat(SigningKey.Ed25519.parse("k", both).publicKey())
                .isEqualTo(SigningKey.Ed25519.parse("k", whsk(RFC_SEED)).publicKey());
        String wrongHalf = "whsk_" + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(RFC_SEED + RFC_SEED));
        assertThatThrownBy(() -> SigningKey.Ed25519.parse("destinations.app.signing.ed25519_key", wrongHalf))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("second half is not the public key").message().doesNotContain(wrongHalf.substring(5));
    }

    @Test
    void aPkcs8PemFileAsOpensslWritesItGivesTheSameKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        var pair = generator.generateKeyPair();
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pair.getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        SigningKey.Ed25519 key = SigningKey.Ed25519.fromFile("destinations.app.signing.ed25519_key_file", pem);
        byte[] encoded = pair.getPublic().getEncoded();
        assertThat(published(key)).isEqualTo(java.util.Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length));
        byte[] signature = v1a(WebhookSigner.of(List.of(key)).signature(ID, TS, BODY));
        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(pair.getPublic());
        verifier.update(signedContent());
        assertThat(verifier.verify(signature)).isTrue();
        assertThat(key.secret()).startsWith("whsk_");
    }

    @Test
    void badKeysAreConfigErrorsThatNameThePathButNeverTheKey() {
        String at = "destinations.app.signing.ed25519_key";
        for (String bad : List.of("whsk_c2hvcnQ=", "whsk_not base64!", "whsec_c2hvcnQ=", "c2hvcnQ=")) {
            assertThatThrownBy(() -> SigningKey.Ed25519.parse(at, bad)).as(bad)
                    .isInstanceOf(SettingsException.class)
                    .hasMessageStartingWith(at + " must be whsk_ followed by the base64 of a 32-byte Ed25519 seed")
                    .hasMessageEndingWith("(redacted: secrets are never printed)")
                    .message().doesNotContain(bad);
        }
        assertThatThrownBy(() -> SigningKey.Ed25519.fromFile("f", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n"))
                .isInstanceOf(SettingsException.class).hasMessageStartingWith("f must hold a PEM private key");
        assertThatThrownBy(() -> SigningKey.parse("secret", "hunter22"))
                .isInstanceOf(SettingsException.class)
                .hasMessage("secret must be whsec_ (an HMAC secret) or whsk_ (an Ed25519 private key) followed by base64,"
                        + " got a 8-character value with neither prefix (redacted: secrets are never printed)");
    }

    @Test
    void aKeyIsNamedByAFingerprintThatIsNotTheKey() {
        SigningKey key = SigningKey.parse("k", whsk(RFC_SEED));
        assertThat(key.fingerprint()).matches("[0-9a-f]{16}");
        assertThat(whsk(RFC_SEED)).doesNotContain(key.fingerprint());
        assertThat(key.toString()).isEqualTo("ed25519 key " + key.fingerprint());
        assertThat(SigningKey.parse("k", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").toString()).startsWith("hmac key ");
    }
}

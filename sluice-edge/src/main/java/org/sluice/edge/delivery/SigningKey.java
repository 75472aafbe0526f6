package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One key a destination signs with, of one of the two kinds Standard Webhooks defines:
 * <ul>
 *   <li>{@link Hmac}: a symmetric secret {@code whsec_<base64 key>}; its entry in
 *       {@code webhook-signature} is {@code v1,<base64 HMAC-SHA256>};</li>
 *   <li>{@link Ed25519}: an Ed25519 private key {@code whsk_<base64>} (the 32-byte seed, or
 *       the 64 bytes of seed then public key that libsodium writes), or a PKCS#8 PEM file as
 *       {@code openssl genpkey -algorithm ed25519} writes; its entry is
 *       {@code v1a,<base64 signature>}, and receivers verify with the public key
 *       {@code whpk_<base64 of the 32 raw bytes>} ({@link Ed25519#publicKey}).</li>
 * </ul>
 * Both sign the same content: {@code "<id>.<timestamp>."} followed by the body.
 *
 * <p>A key is named in listings and audit records by its {@link #fingerprint}: the first 16
 * hex digits of SHA-256 over the text as configured, which identifies a key without saying
 * anything usable about it. The secret itself is never printed; a message about a bad one
 * describes its length.
 *
 * <p>Immutable and thread-safe: each signature uses its own {@link Mac} or {@link Signature}.
 */
public sealed interface SigningKey permits SigningKey.Hmac, SigningKey.Ed25519 {

    String HMAC_PREFIX = "whsec_";
    String ED25519_PREFIX = "whsk_";
    String ED25519_PUBLIC_PREFIX = "whpk_";
    /** Appended to every message about a secret. */
    String REDACTED = " (redacted: secrets are never printed)";

    /** The signature's version in {@code webhook-signature}: {@code v1} or {@code v1a}. */
    String version();

    /** {@code hmac} or {@code ed25519}, as listings show it. */
    String kind();

    /** 16 hex digits of SHA-256 over the key as configured: names the key without revealing it. */
    String fingerprint();

    /** The key as it was given ({@code whsec_...} or {@code whsk_...}): what a rotation stores. Never print it. */
    String secret();

    /** The base64 signature of {@code prefix} followed by {@code body}. */
    String sign(byte[] prefix, byte[] body);

    /**
     * The key written {@code secret} ({@code whsec_...} or {@code whsk_...}), read at
     * {@code path} (named in a message).
     *
     * @throws SettingsException describing what is wrong, never printing the value
     */
    static SigningKey parse(String path, String secret) {
        if (secret != null && secret.startsWith(ED25519_PREFIX)) {
            return Ed25519.parse(path, secret);
        }
        if (secret != null && secret.startsWith(HMAC_PREFIX)) {
            return Hmac.parse(path, secret);
        }
        throw new SettingsException(path + " must be " + HMAC_PREFIX + " (an HMAC secret) or " + ED25519_PREFIX
                + " (an Ed25519 private key) followed by base64, got "
                + (secret == null ? "nothing" : "a " + secret.length() + "-character value with neither prefix" + REDACTED));
    }

    /** 16 hex digits of SHA-256 over {@code text}. */
    static String fingerprintOf(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The standard base64 of {@code encoded}, padding optional; null when it is not base64. */
    private static byte[] base64(String encoded) {
        try {
            return Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    // ------------------------------------------------------------------ HMAC (v1)

    /** A {@code whsec_} secret: HMAC-SHA256 keyed by the decoded bytes. */
    final class Hmac extends Held implements SigningKey {

        private static final String ALGORITHM = "HmacSHA256";

        private final SecretKeySpec key;

        private Hmac(String secret, byte[] key) {
            super(secret);
            this.key = new SecretKeySpec(key, ALGORITHM);
        }

        /**
         * @throws SettingsException when {@code secret} is not {@code whsec_} followed by standard
         *     base64 (padding optional) of at least one byte
         */
        public static Hmac parse(String path, String secret) {
            if (secret == null) {
                throw new SettingsException(path + " must be a string " + HMAC_PREFIX + "<base64 key>, got nothing");
            }
            if (!secret.startsWith(HMAC_PREFIX)) {
                throw new SettingsException(path + " must be " + HMAC_PREFIX + " followed by the base64 of the key, got "
                        + shape(secret) + " that does not start with " + HMAC_PREFIX + REDACTED);
            }
            byte[] key = base64(secret.substring(HMAC_PREFIX.length()));
            if (key == null) {
                throw new SettingsException(path + " must be " + HMAC_PREFIX + " followed by the base64 of the key, got "
                        + shape(secret) + " whose key part is not base64" + REDACTED);
            }
            if (key.length == 0) {
                throw new SettingsException(path + " must be " + HMAC_PREFIX
                        + " followed by the base64 of a key of at least one byte, got an empty key" + REDACTED);
            }
            return new Hmac(secret, key);
        }

        @Override
        public String version() {
            return "v1";
        }

        @Override
        public String kind() {
            return "hmac";
        }

        @Override
        public String sign(byte[] prefix, byte[] body) {
            try {
                Mac mac = Mac.getInstance(ALGORITHM);
                mac.init(key);
                mac.update(prefix);
                return Base64.getEncoder().encodeToString(mac.doFinal(body));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
            }
        }

    }

    // ------------------------------------------------------------------ Ed25519 (v1a)

    /** An Ed25519 private key, with the public key receivers verify with. */
    final class Ed25519 extends Held implements SigningKey {

        private static final String ALGORITHM = "Ed25519";
        private static final int SEED_BYTES = 32;
        private static final String PEM_BEGIN = "-----BEGIN PRIVATE KEY-----";
        private static final String PEM_END = "-----END PRIVATE KEY-----";

        private final PrivateKey privateKey;
        private final byte[] publicRaw;

        private Ed25519(String secret, PrivateKey privateKey, byte[] publicRaw) {
            super(secret);
            this.privateKey = privateKey;
            this.publicRaw = publicRaw;
        }

        /**
         * @throws SettingsException when {@code secret} is not {@code whsk_} followed by the base64
         *     of a 32-byte seed, or of 64 bytes of seed and its public key
         */
        public static Ed25519 parse(String path, String secret) {
            byte[] raw = secret == null || !secret.startsWith(ED25519_PREFIX) ? null
                    : base64(secret.substring(ED25519_PREFIX.length()));
            if (raw == null || (raw.length != SEED_BYTES && raw.length != 2 * SEED_BYTES)) {
                throw new SettingsException(path + " must be " + ED25519_PREFIX + " followed by the base64 of a 32-byte"
                        + " Ed25519 seed (or of 64 bytes: the seed, then its public key), got "
                        + (secret == null ? "nothing" : shape(secret) + " that is not one" + REDACTED));
            }
            byte[] seed = Arrays.copyOf(raw, SEED_BYTES);
            KeyPair pair = fromSeed(seed);
            byte[] publicRaw = rawPublic(pair.getPublic());
            if (raw.length == 2 * SEED_BYTES && !Arrays.equals(publicRaw, Arrays.copyOfRange(raw, SEED_BYTES, raw.length))) {
                throw new SettingsException(path + " holds 64 bytes whose second half is not the public key of the first"
                        + " (a 32-byte seed then its public key was expected)" + REDACTED);
            }
            return new Ed25519(secret, pair.getPrivate(), publicRaw);
        }

        /**
         * The key in {@code text}, the contents of a key file at {@code path}: a PKCS#8 PEM
         * block ({@code -----BEGIN PRIVATE KEY-----}) holding an Ed25519 key, or one
         * {@code whsk_} line. Its {@link #secret()} is then the {@code whsk_} form.
         */
        public static Ed25519 fromFile(String path, String text) {
            String trimmed = text.strip();
            if (trimmed.startsWith(ED25519_PREFIX)) {
                return parse(path, trimmed);
            }
            int begin = trimmed.indexOf(PEM_BEGIN);
            int end = trimmed.indexOf(PEM_END);
            byte[] der = begin < 0 || end < begin ? null
                    : base64(trimmed.substring(begin + PEM_BEGIN.length(), end).replaceAll("\\s", ""));
            if (der == null) {
                throw new SettingsException(path + " must hold a PEM private key (-----BEGIN PRIVATE KEY-----, as openssl"
                        + " genpkey -algorithm ed25519 writes) or one " + ED25519_PREFIX + " line, got "
                        + trimmed.length() + " characters that are neither" + REDACTED);
            }
            byte[] seed;
            try {
                PrivateKey key = KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(der));
                seed = ((EdECPrivateKey) key).getBytes().orElse(null);
            } catch (GeneralSecurityException | ClassCastException e) {
                seed = null;
            }
            if (seed == null || seed.length != SEED_BYTES) {
                throw new SettingsException(path + " must hold an Ed25519 private key, got a PEM private key that is not"
                        + " one" + REDACTED);
            }
            return parse(path, ED25519_PREFIX + Base64.getEncoder().encodeToString(seed));
        }

        /** A new random key. */
        public static Ed25519 generate() {
            byte[] seed = new byte[SEED_BYTES];
            new SecureRandom().nextBytes(seed);
            return parse("a generated key", ED25519_PREFIX + Base64.getEncoder().encodeToString(seed));
        }

        /**
         * The pair whose private key is {@code seed}. The JDK has no call that derives an
         * Ed25519 public key from a private one, but its generator draws exactly the 32 bytes
         * of the private key from the random source it is given and computes the public key
         * from them (RFC 8032, 5.1.5); a source that yields {@code seed} makes the pair. A
         * probe signature, verified with the public key, checks that this held.
         */
        private static KeyPair fromSeed(byte[] seed) {
            try {
                KeyPairGenerator generator = KeyPairGenerator.getInstance(ALGORITHM);
                generator.initialize(NamedParameterSpec.ED25519, new SeedSource(seed));
                KeyPair pair = generator.generateKeyPair();
                byte[] probe = "sluice-ed25519-probe".getBytes(StandardCharsets.US_ASCII);
                Signature signer = Signature.getInstance(ALGORITHM);
                signer.initSign(pair.getPrivate());
                signer.update(probe);
                byte[] signature = signer.sign();
                Signature verifier = Signature.getInstance(ALGORITHM);
                verifier.initVerify(pair.getPublic());
                verifier.update(probe);
                if (!verifier.verify(signature)
                        || !Arrays.equals(((EdECPrivateKey) pair.getPrivate()).getBytes().orElse(null), seed)) {
                    throw new IllegalStateException("the Java runtime's Ed25519 generator did not take the seed given");
                }
                return pair;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java runtime from 15 on has " + ALGORITHM, e);
            }
        }

        /** The 32 raw bytes of an Ed25519 public key: the end of its X.509 encoding. */
        private static byte[] rawPublic(PublicKey key) {
            byte[] encoded = key.getEncoded();
            return Arrays.copyOfRange(encoded, encoded.length - SEED_BYTES, encoded.length);
        }

        /** {@code whpk_} followed by the base64 of the 32 raw bytes of the public key: what receivers verify with. */
        public String publicKey() {
            return ED25519_PUBLIC_PREFIX + Base64.getEncoder().encodeToString(publicRaw);
        }

        @Override
        public String version() {
            return "v1a";
        }

        @Override
        public String kind() {
            return "ed25519";
        }

        @Override
        public String sign(byte[] prefix, byte[] body) {
            try {
                Signature signature = Signature.getInstance(ALGORITHM);
                signature.initSign(privateKey);
                signature.update(prefix);
                signature.update(body);
                return Base64.getEncoder().encodeToString(signature.sign());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java runtime from 15 on has " + ALGORITHM, e);
            }
        }

    }

    /** What both kinds hold: the key as written and its fingerprint; printed as its kind and fingerprint alone. */
    abstract sealed class Held permits Hmac, Ed25519 {

        private final String secret;
        private final String fingerprint;

        Held(String secret) {
            this.secret = secret;
            this.fingerprint = fingerprintOf(secret);
        }

        /** 16 hex digits of SHA-256 over the key as configured. */
        public final String fingerprint() {
            return fingerprint;
        }

        /** The key as it was given: what a rotation stores. Never print it. */
        public final String secret() {
            return secret;
        }

        /** {@code hmac} or {@code ed25519}. */
        public abstract String kind();

        /** The kind and the fingerprint: never the key. */
        @Override
        public final String toString() {
            return kind() + " key " + fingerprint;
        }
    }

    /** A random source that yields one seed, for {@link Ed25519#fromSeed}. */
    final class SeedSource extends SecureRandom {

        private static final long serialVersionUID = 1L;
        private final byte[] seed;

        private SeedSource(byte[] seed) {
            this.seed = seed.clone();
        }

        @Override
        public void nextBytes(byte[] bytes) {
            if (bytes.length != seed.length) {
                throw new IllegalStateException("the generator asked for " + bytes.length + " bytes, not the seed's "
                        + seed.length);
            }
            System.arraycopy(seed, 0, bytes, 0, bytes.length);
        }
    }

    private static String shape(String secret) {
        return "a " + secret.length() + "-character value";
    }
}

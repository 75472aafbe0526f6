package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs outbound requests the Standard Webhooks way: the value of {@code webhook-signature}
 * is {@code v1,} followed by the base64 of HMAC-SHA256 over
 * {@code "<webhook-id>.<webhook-timestamp>." + body}, keyed by the secret's decoded bytes.
 *
 * <p>The configured secret is {@code whsec_<base64>}; the key is the decoded part. Any other
 * shape is a configuration error that names the key path; the value itself is described
 * (its length, what is wrong with it), never printed, because it is a secret.
 *
 * <p>Immutable and thread-safe: each call to {@link #signature} uses its own {@link Mac}.
 */
public final class WebhookSigner {

    public static final String SECRET_PREFIX = "whsec_";
    private static final String ALGORITHM = "HmacSHA256";
    private static final String REDACTED = " (redacted: secrets are never printed)";

    private final SecretKeySpec key;

    private WebhookSigner(byte[] key) {
        this.key = new SecretKeySpec(key, ALGORITHM);
    }

    /**
     * The signer for {@code secret}, read from the config key at {@code path}.
     *
     * @throws SettingsException when the secret is not {@code whsec_} followed by standard
     *     base64 (padding optional) of at least one byte
     */
    public static WebhookSigner fromSecret(String path, String secret) {
        if (secret == null) {
            throw new SettingsException(path + " must be a string " + SECRET_PREFIX + "<base64 key>, got nothing");
        }
        if (!secret.startsWith(SECRET_PREFIX)) {
            throw new SettingsException(path + " must be " + SECRET_PREFIX + " followed by the base64 of the key, got "
                    + shape(secret) + " that does not start with " + SECRET_PREFIX + REDACTED);
        }
        String encoded = secret.substring(SECRET_PREFIX.length());
        byte[] key;
        try {
            key = Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException notBase64) {
            throw new SettingsException(path + " must be " + SECRET_PREFIX + " followed by the base64 of the key, got "
                    + shape(secret) + " whose key part is not base64" + REDACTED);
        }
        if (key.length == 0) {
            throw new SettingsException(path + " must be " + SECRET_PREFIX
                    + " followed by the base64 of a key of at least one byte, got an empty key" + REDACTED);
        }
        return new WebhookSigner(key);
    }

    private static String shape(String secret) {
        return "a " + secret.length() + "-character value";
    }

    /** The {@code webhook-signature} value for one attempt: {@code v1,<base64 MAC>}. */
    public String signature(String webhookId, long timestampSeconds, byte[] body) {
        if (webhookId == null || webhookId.isEmpty()) {
            throw new IllegalArgumentException("a webhook id is needed to sign, got " + webhookId);
        }
        if (timestampSeconds < 0) {
            throw new IllegalArgumentException("a timestamp is epoch seconds, got " + timestampSeconds);
        }
        Mac mac = newMac();
        mac.update((webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
        byte[] digest = mac.doFinal(body);
        return "v1," + Base64.getEncoder().encodeToString(digest);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }
}

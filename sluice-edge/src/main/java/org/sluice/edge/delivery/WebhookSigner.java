package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs outbound requests the Standard Webhooks way: the value of {@code webhook-signature}
 * is {@code v1,} followed by the base64 of HMAC-SHA256 over
 * {@code "<webhook-id>.<webhook-timestamp>." + body}, keyed by the secret's decoded bytes.
 * With several secrets (a rotation under way) every one signs, and the signatures are
 * joined by spaces, as the specification allows: a receiver holding either secret verifies.
 * The three headers may carry other names ({@link #withHeaderNames}) for a receiver that
 * expects another wire format.
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

    /** Most secrets one destination signs with at once. */
    public static final int MAX_SECRETS = 8;

    private final List<SecretKeySpec> keys;
    private final String idHeader;
    private final String timestampHeader;
    private final String signatureHeader;

    private WebhookSigner(List<SecretKeySpec> keys, String idHeader, String timestampHeader, String signatureHeader) {
        this.keys = List.copyOf(keys);
        this.idHeader = idHeader;
        this.timestampHeader = timestampHeader;
        this.signatureHeader = signatureHeader;
    }

    private WebhookSigner(byte[] key) {
        this(List.of(new SecretKeySpec(key, ALGORITHM)), OutboundHeaders.WEBHOOK_ID, OutboundHeaders.WEBHOOK_TIMESTAMP,
                OutboundHeaders.WEBHOOK_SIGNATURE);
    }

    /**
     * The signer for every secret of {@code secrets}, read from the list at {@code path}
     * ({@code path[i]} names each in a message).
     *
     * @throws SettingsException listing every bad secret, or when there are none or more than {@value #MAX_SECRETS}
     */
    public static WebhookSigner fromSecrets(String path, List<String> secrets) {
        if (secrets.isEmpty() || secrets.size() > MAX_SECRETS) {
            throw new SettingsException(path + " must list 1 to " + MAX_SECRETS + " secrets, got " + secrets.size());
        }
        List<SecretKeySpec> keys = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < secrets.size(); i++) {
            try {
                keys.addAll(fromSecret(path + "[" + i + "]", secrets.get(i)).keys);
            } catch (SettingsException bad) {
                problems.addAll(bad.errors());
            }
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new WebhookSigner(keys, OutboundHeaders.WEBHOOK_ID, OutboundHeaders.WEBHOOK_TIMESTAMP,
                OutboundHeaders.WEBHOOK_SIGNATURE);
    }

    /** This signer, its id, timestamp and signature sent under the given (lower-case) names. */
    public WebhookSigner withHeaderNames(String id, String timestamp, String signature) {
        return new WebhookSigner(keys, id, timestamp, signature);
    }

    /** The header carrying the hook's id ({@code webhook-id} unless renamed). */
    public String idHeader() {
        return idHeader;
    }

    /** The header carrying the attempt's timestamp ({@code webhook-timestamp} unless renamed). */
    public String timestampHeader() {
        return timestampHeader;
    }

    /** The header carrying the signatures ({@code webhook-signature} unless renamed). */
    public String signatureHeader() {
        return signatureHeader;
    }

    /** How many secrets sign. */
    public int secretCount() {
        return keys.size();
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

    /**
     * The {@code webhook-signature} value for one attempt: {@code v1,<base64 MAC>}, one per
     * secret in the configured order, joined by single spaces.
     */
    public String signature(String webhookId, long timestampSeconds, byte[] body) {
        if (webhookId == null || webhookId.isEmpty()) {
            throw new IllegalArgumentException("a webhook id is needed to sign, got " + webhookId);
        }
        if (timestampSeconds < 0) {
            throw new IllegalArgumentException("a timestamp is epoch seconds, got " + timestampSeconds);
        }
        byte[] signed = (webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (SecretKeySpec key : keys) {
            Mac mac = newMac(key);
            mac.update(signed);
            out.append(out.length() == 0 ? "" : " ").append("v1,").append(Base64.getEncoder().encodeToString(mac.doFinal(body)));
        }
        return out.toString();
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }
}

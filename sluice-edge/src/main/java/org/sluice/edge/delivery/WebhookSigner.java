package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Signs outbound requests the Standard Webhooks way: the value of {@code webhook-signature}
 * is a space-separated list with one entry per signing key, each over the content
 * {@code "<webhook-id>.<webhook-timestamp>." + body}: {@code v1,<base64 HMAC-SHA256>} for a
 * {@code whsec_} secret, {@code v1a,<base64 Ed25519 signature>} for a {@code whsk_} private
 * key ({@link SigningKey}). With several keys (a rotation under way, or both kinds) every one
 * signs, as the specification allows: a receiver holding any one of them verifies. The three
 * headers may carry other names ({@link #withHeaderNames}) for a receiver that expects
 * another wire format.
 *
 * <p>The keys are those of the configuration, changed at runtime by a rotation
 * ({@link #apply}, from {@link SecretRotations}): each key signs until its end, if it has
 * one, and an attempt whose timestamp is at or past a key's end is not signed by it. The
 * configured secret is described when bad (its length, what is wrong with it), never
 * printed, because it is a secret.
 *
 * <p>Thread-safe: the keys are one immutable list in a volatile field, replaced whole by a
 * rotation (the copies {@link #withHeaderNames} makes share it); each signature uses its own
 * {@code Mac} or {@code Signature}.
 */
public final class WebhookSigner {

    public static final String SECRET_PREFIX = SigningKey.HMAC_PREFIX;

    /** Most keys one destination signs with at once. */
    public static final int MAX_SECRETS = 8;
    /** The end of a key that has none. */
    public static final long NO_END = Long.MAX_VALUE;

    /** A signing key and the epoch millisecond it stops signing at ({@link #NO_END}: never). */
    public record Timed(SigningKey key, long untilMillis) {
        public Timed {
            Objects.requireNonNull(key, "key");
        }

        /** Whether this key signs an attempt made at {@code epochSeconds}: the attempt is before its end. */
        public boolean signsAt(long epochSeconds) {
            long untilSeconds = untilMillis / 1000 + (untilMillis % 1000 == 0 ? 0 : 1); // ceiling, for untilMillis >= 0
            return untilMillis == NO_END || epochSeconds < untilSeconds;
        }
    }

    /** The keys now in force, shared by the copies {@link #withHeaderNames} makes. */
    private static final class Ring {
        private volatile List<Timed> keys;

        Ring(List<Timed> keys) {
            this.keys = List.copyOf(keys);
        }
    }

    private final List<SigningKey> configured;
    private final Ring ring;
    private final String idHeader;
    private final String timestampHeader;
    private final String signatureHeader;

    private WebhookSigner(List<SigningKey> configured, Ring ring, String idHeader, String timestampHeader,
                          String signatureHeader) {
        this.configured = List.copyOf(configured);
        this.ring = ring;
        this.idHeader = idHeader;
        this.timestampHeader = timestampHeader;
        this.signatureHeader = signatureHeader;
    }

    /** The signer for exactly {@code keys} (1 to {@value #MAX_SECRETS}), as configured, under the standard header names. */
    public static WebhookSigner of(List<SigningKey> keys) {
        if (keys.isEmpty() || keys.size() > MAX_SECRETS) {
            throw new IllegalArgumentException("a signer takes 1 to " + MAX_SECRETS + " keys, got " + keys.size());
        }
        return new WebhookSigner(keys, new Ring(keys.stream().map(k -> new Timed(k, NO_END)).toList()),
                OutboundHeaders.WEBHOOK_ID, OutboundHeaders.WEBHOOK_TIMESTAMP, OutboundHeaders.WEBHOOK_SIGNATURE);
    }

    /**
     * The signer for every secret of {@code secrets}, read from the list at {@code path}
     * ({@code path[i]} names each in a message).
     *
     * @throws SettingsException listing every bad secret, or when there are none or more than {@value #MAX_SECRETS}
     */
    public static WebhookSigner fromSecrets(String path, List<String> secrets) {
        return of(hmacKeys(path, secrets));
    }

    /**
     * The {@code whsec_} keys of the list at {@code path}.
     *
     * @throws SettingsException listing every bad secret, or when there are none or more than {@value #MAX_SECRETS}
     */
    public static List<SigningKey> hmacKeys(String path, List<String> secrets) {
        if (secrets.isEmpty() || secrets.size() > MAX_SECRETS) {
            throw new SettingsException(path + " must list 1 to " + MAX_SECRETS + " secrets, got " + secrets.size());
        }
        List<SigningKey> keys = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < secrets.size(); i++) {
            try {
                keys.add(SigningKey.Hmac.parse(path + "[" + i + "]", secrets.get(i)));
            } catch (SettingsException bad) {
                problems.addAll(bad.errors());
            }
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return keys;
    }

    /** This signer, its id, timestamp and signature sent under the given (lower-case) names; the keys are shared. */
    public WebhookSigner withHeaderNames(String id, String timestamp, String signature) {
        return new WebhookSigner(configured, ring, id, timestamp, signature);
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

    /** How many keys are in force (those of a rotation whose end has passed included, until the next rotation). */
    public int secretCount() {
        return ring.keys.size();
    }

    /** The keys of the configuration, in its order. */
    public List<SigningKey> configured() {
        return configured;
    }

    /** The keys in force, each with its end, in signing order. */
    public List<Timed> keys() {
        return ring.keys;
    }

    /** Makes {@code keys} (configured and rotated, each with its end) the keys in force, at once for every attempt after. */
    public void apply(List<Timed> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a signer needs at least one key");
        }
        ring.keys = List.copyOf(keys);
    }

    /**
     * The signer for {@code secret}, read from the config key at {@code path}.
     *
     * @throws SettingsException when the secret is not {@code whsec_} followed by standard
     *     base64 (padding optional) of at least one byte
     */
    public static WebhookSigner fromSecret(String path, String secret) {
        return of(List.of(SigningKey.Hmac.parse(path, secret)));
    }

    /**
     * The {@code webhook-signature} value for one attempt: one entry per key that signs at
     * {@code timestampSeconds} ({@code v1,<base64 MAC>} or {@code v1a,<base64 signature>}),
     * in the order of {@link #keys()}, joined by single spaces.
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
        for (Timed timed : ring.keys) {
            if (timed.signsAt(timestampSeconds)) {
                SigningKey key = timed.key();
                out.append(out.length() == 0 ? "" : " ").append(key.version()).append(',').append(key.sign(signed, body));
            }
        }
        return out.toString();
    }
}

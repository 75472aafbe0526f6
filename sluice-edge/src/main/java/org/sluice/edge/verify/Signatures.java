package org.sluice.edge.verify;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Produces valid signature headers for every scheme, as a sender would. For clients,
 * demos, the README's curl lines and tests; the server never calls it. Secrets are given
 * exactly as they appear in the config ({@code whsec_...} for standard_webhooks).
 */
public final class Signatures {

    private Signatures() {
    }

    /** {@code X-Hub-Signature-256} value: {@code sha256=<hex>}. */
    public static String github(String secret, byte[] body) {
        return Verifiers.GITHUB_PREFIX + SignatureEncoding.toHex(sha256(secret, body));
    }

    /** {@code Stripe-Signature} value: {@code t=<timestamp>,v1=<hex>}. */
    public static String stripe(String secret, byte[] body, long epochSeconds) {
        String t = Long.toString(epochSeconds);
        return "t=" + t + ",v1=" + SignatureEncoding.toHex(sha256(secret, ascii(t + "."), body));
    }

    /** {@code X-Shopify-Hmac-SHA256} value: base64 of the body's HMAC-SHA256. */
    public static String shopify(String secret, byte[] body) {
        return SignatureEncoding.toBase64(sha256(secret, body));
    }

    /** {@code X-Slack-Signature} value ({@code v0=<hex>}); send {@code X-Slack-Request-Timestamp: epochSeconds} with it. */
    public static String slack(String secret, byte[] body, long epochSeconds) {
        return "v0=" + SignatureEncoding.toHex(sha256(secret, ascii("v0:" + epochSeconds + ":"), body));
    }

    /**
     * {@code webhook-signature} value ({@code v1,<base64>}); send {@code webhook-id: id} and
     * {@code webhook-timestamp: epochSeconds} with it.
     *
     * @param secret {@code whsec_<base64>} (or bare base64)
     */
    public static String standardWebhooks(String secret, String id, long epochSeconds, byte[] body) {
        byte[] key = SecretKeys.keyBytes(Verifiers.STANDARD_WEBHOOKS, secret);
        if (key == null) {
            throw new IllegalArgumentException("a standard_webhooks secret must be base64 after an optional \"whsec_\" prefix");
        }
        byte[] mac = HmacAlgorithm.SHA256.mac(key, (id + "." + epochSeconds + ".").getBytes(StandardCharsets.UTF_8), body);
        return "v1," + SignatureEncoding.toBase64(mac);
    }

    /**
     * Custom {@code hmac} scheme header value: {@code prefix + encode(HMAC(secret, body))}.
     *
     * @param algorithm sha256 | sha512 | sha1
     * @param encoding  hex | base64
     */
    public static String hmac(String algorithm, String encoding, String prefix, String secret, byte[] body) {
        HmacAlgorithm a = HmacAlgorithm.named(algorithm);
        if (a == null) {
            throw new IllegalArgumentException("algorithm must be one of sha256, sha512, sha1, got \"" + algorithm + "\"");
        }
        byte[] mac = a.mac(utf8(secret), body);
        String encoded = switch (encoding) {
            case "hex" -> SignatureEncoding.toHex(mac);
            case "base64" -> SignatureEncoding.toBase64(mac);
            default -> throw new IllegalArgumentException("encoding must be one of hex, base64, got \"" + encoding + "\"");
        };
        return (prefix == null ? "" : prefix) + encoded;
    }

    /**
     * Every header a request needs to pass a verifier built from {@code spec}, signed with
     * {@code secret} (one of the spec's secrets, or any other to forge one). For
     * standard_webhooks the message id is {@code msgId}. Scheme {@code none} needs no header.
     */
    public static Map<String, String> headers(VerifySpec spec, String secret, byte[] body, long epochSeconds, String msgId) {
        Map<String, String> h = new LinkedHashMap<>();
        switch (spec.scheme()) {
            case Verifiers.GITHUB -> h.put(Verifiers.GITHUB_HEADER, github(secret, body));
            case Verifiers.STRIPE -> h.put(StripeVerifier.HEADER, stripe(secret, body, epochSeconds));
            case Verifiers.SHOPIFY -> h.put(Verifiers.SHOPIFY_HEADER, shopify(secret, body));
            case Verifiers.SLACK -> {
                h.put(SlackVerifier.SIGNATURE, slack(secret, body, epochSeconds));
                h.put(SlackVerifier.TIMESTAMP, Long.toString(epochSeconds));
            }
            case Verifiers.STANDARD_WEBHOOKS -> {
                h.put(StandardWebhooksVerifier.ID, msgId);
                h.put(StandardWebhooksVerifier.TIMESTAMP, Long.toString(epochSeconds));
                h.put(StandardWebhooksVerifier.SIGNATURE, standardWebhooks(secret, msgId, epochSeconds, body));
            }
            case Verifiers.HMAC -> h.put(spec.header(), hmac(
                    spec.algorithm() == null ? "sha256" : spec.algorithm(),
                    spec.encoding() == null ? "hex" : spec.encoding(),
                    spec.prefix(), secret, body));
            case Verifiers.NONE -> { }
            default -> throw new IllegalArgumentException("unknown scheme \"" + spec.scheme() + "\"");
        }
        return h;
    }

    /** {@link #headers(VerifySpec, String, byte[], long, String)} with message id {@code msg_<epochSeconds>}. */
    public static Map<String, String> headers(VerifySpec spec, String secret, byte[] body, long epochSeconds) {
        return headers(spec, secret, body, epochSeconds, "msg_" + epochSeconds);
    }

    private static byte[] sha256(String secret, byte[]... parts) {
        return HmacAlgorithm.SHA256.mac(utf8(secret), parts);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}

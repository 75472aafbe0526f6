package org.sluice.edge.verify;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a source's {@link Verifier} from its {@code verify:} block, failing the boot on
 * anything that could not verify a request.
 *
 * <p>Error messages name the key path and the offending value; a secret is never printed,
 * only its length. {@code keyPath} is the path of the verify block itself, e.g.
 * {@code sources.gh-acme.verify}, so messages read
 * {@code sources.gh-acme.verify.secrets[0] must be a non-empty secret, got ""}.
 *
 * <p>For {@code hmac}, a null {@code algorithm} means sha256, a null {@code encoding} hex and a
 * null {@code prefix} none. {@code header} and a non-empty {@code prefix} are refused for the
 * other schemes, whose headers are fixed; {@code algorithm} and {@code encoding} are ignored by
 * them.
 */
public final class Verifiers {

    public static final String GITHUB = "github";
    public static final String STRIPE = "stripe";
    public static final String SHOPIFY = "shopify";
    public static final String SLACK = "slack";
    public static final String STANDARD_WEBHOOKS = "standard_webhooks";
    public static final String HMAC = "hmac";
    public static final String NONE = "none";

    /** Every scheme name, in the order error messages list them. */
    public static final List<String> SCHEMES = List.of(GITHUB, STRIPE, SHOPIFY, SLACK, STANDARD_WEBHOOKS, HMAC, NONE);

    /** Most secrets one source may hold (rotation). */
    public static final int MAX_SECRETS = 8;

    /** The {@code tolerance_seconds} a config loader should use when none is given. */
    public static final int DEFAULT_TOLERANCE_SECONDS = 300;

    /** The verifier of scheme {@code none}: every request is genuine. */
    public static final Verifier ACCEPT_ALL = (headers, body, now) -> VerifyOutcome.OK;

    static final String GITHUB_HEADER = "X-Hub-Signature-256";
    static final String GITHUB_PREFIX = "sha256=";
    static final String SHOPIFY_HEADER = "X-Shopify-Hmac-SHA256";

    private Verifiers() {
    }

    /**
     * @param spec    the source's verify block
     * @param keyPath the block's key path, for error messages
     * @throws IllegalArgumentException naming the key path and the (redacted) value
     */
    public static Verifier create(VerifySpec spec, String keyPath) {
        String scheme = spec.scheme();
        if (scheme == null || !SCHEMES.contains(scheme)) {
            throw bad(keyPath, "scheme", "must be one of " + String.join(", ", SCHEMES) + ", got " + quote(scheme));
        }
        if (spec.toleranceSeconds() < 1) {
            throw bad(keyPath, "tolerance_seconds", "must be an integer of at least 1, got " + spec.toleranceSeconds());
        }
        if (!HMAC.equals(scheme)) {
            if (spec.header() != null) {
                throw bad(keyPath, "header", "is only for scheme hmac, got " + quote(spec.header()) + " with scheme " + scheme);
            }
            if (spec.prefix() != null && !spec.prefix().isEmpty()) {
                throw bad(keyPath, "prefix", "is only for scheme hmac, got " + quote(spec.prefix()) + " with scheme " + scheme);
            }
        }
        List<String> secrets = spec.secrets();
        if (NONE.equals(scheme)) {
            if (!secrets.isEmpty()) {
                throw bad(keyPath, "secrets", "must be empty for scheme none, got " + secrets.size()
                        + (secrets.size() == 1 ? " secret" : " secrets"));
            }
            return ACCEPT_ALL;
        }
        if (secrets.isEmpty()) {
            throw bad(keyPath, "secrets", "must hold at least one secret for scheme " + scheme + ", got []");
        }
        if (secrets.size() > MAX_SECRETS) {
            throw bad(keyPath, "secrets", "must hold at most " + MAX_SECRETS + " secrets, got " + secrets.size());
        }
        List<byte[]> keys = new ArrayList<>(secrets.size());
        for (int i = 0; i < secrets.size(); i++) {
            keys.add(key(scheme, secrets.get(i), keyPath, i));
        }
        long tolerance = spec.toleranceSeconds();
        return switch (scheme) {
            case GITHUB -> new HeaderHmacVerifier(GITHUB_HEADER, GITHUB_PREFIX, false, new MacKeys(HmacAlgorithm.SHA256, keys));
            case SHOPIFY -> new HeaderHmacVerifier(SHOPIFY_HEADER, "", true, new MacKeys(HmacAlgorithm.SHA256, keys));
            case STRIPE -> new StripeVerifier(new MacKeys(HmacAlgorithm.SHA256, keys), tolerance);
            case SLACK -> new SlackVerifier(new MacKeys(HmacAlgorithm.SHA256, keys), tolerance);
            case STANDARD_WEBHOOKS -> new StandardWebhooksVerifier(new MacKeys(HmacAlgorithm.SHA256, keys), tolerance);
            case HMAC -> custom(spec, keyPath, keys);
            default -> throw new AssertionError(scheme);
        };
    }

    private static Verifier custom(VerifySpec spec, String keyPath, List<byte[]> keys) {
        String header = spec.header();
        if (header == null) {
            throw bad(keyPath, "header", "must be set for scheme hmac, got null");
        }
        if (!isHeaderName(header)) {
            throw bad(keyPath, "header", "must be an HTTP header name, got " + quote(header));
        }
        String algorithmName = spec.algorithm() == null ? HmacAlgorithm.SHA256.configName : spec.algorithm();
        HmacAlgorithm algorithm = HmacAlgorithm.named(algorithmName);
        if (algorithm == null) {
            throw bad(keyPath, "algorithm", "must be one of sha256, sha512, sha1, got " + quote(algorithmName));
        }
        String encoding = spec.encoding() == null ? "hex" : spec.encoding();
        if (!encoding.equals("hex") && !encoding.equals("base64")) {
            throw bad(keyPath, "encoding", "must be one of hex, base64, got " + quote(encoding));
        }
        String prefix = spec.prefix() == null ? "" : spec.prefix();
        return new HeaderHmacVerifier(header, prefix, encoding.equals("base64"), new MacKeys(algorithm, keys));
    }

    private static byte[] key(String scheme, String secret, String keyPath, int index) {
        String field = "secrets[" + index + "]";
        if (secret.isEmpty()) {
            throw bad(keyPath, field, "must be a non-empty secret, got \"\"");
        }
        if (secret.isBlank()) {
            throw bad(keyPath, field, "must be a non-empty secret, got a blank value");
        }
        byte[] key = SecretKeys.keyBytes(scheme, secret);
        if (key == null) {
            throw bad(keyPath, field, "must be base64 after an optional \"whsec_\" prefix for scheme "
                    + STANDARD_WEBHOOKS + ", got a " + secret.length() + "-character value (redacted)");
        }
        return key;
    }

    /**
     * The headers scheme {@code spec.scheme()} reads: a hook is stored with them, so that its
     * signature can be checked again from the stored hook ({@code GET /v1/hooks/{id}}).
     */
    public static List<String> headerNames(VerifySpec spec) {
        String scheme = spec.scheme() == null ? NONE : spec.scheme();
        return switch (scheme) {
            case GITHUB -> List.of(GITHUB_HEADER);
            case SHOPIFY -> List.of(SHOPIFY_HEADER);
            case STRIPE -> List.of(StripeVerifier.HEADER);
            case SLACK -> List.of(SlackVerifier.SIGNATURE, SlackVerifier.TIMESTAMP);
            case STANDARD_WEBHOOKS -> List.of(StandardWebhooksVerifier.ID, StandardWebhooksVerifier.TIMESTAMP,
                    StandardWebhooksVerifier.SIGNATURE);
            case HMAC -> spec.header() == null ? List.of() : List.of(spec.header());
            default -> List.of();
        };
    }

    /** True when {@code s} is a valid HTTP header name (an RFC 9110 token, {@link HttpTokens}). Also used by dedupe and config. */
    public static boolean isHeaderName(String s) {
        return HttpTokens.isToken(s);
    }

    private static String quote(String s) {
        return s == null ? "null" : '"' + s + '"';
    }

    private static IllegalArgumentException bad(String keyPath, String field, String problem) {
        return new IllegalArgumentException(keyPath + "." + field + " " + problem);
    }
}

package org.sluice.edge.dedupe;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.sluice.edge.verify.Verifiers;

/**
 * Builds a source's {@link DedupeKeyExtractor} from its {@code dedupe:} setting.
 *
 * <ul>
 *   <li>{@code github}: header {@code X-GitHub-Delivery}; {@code standard_webhooks}:
 *       {@code webhook-id}; {@code svix}: {@code svix-id}; {@code shopify}:
 *       {@code X-Shopify-Webhook-Id}; {@code {header: NAME}}: that header. An absent or blank
 *       header is no key.</li>
 *   <li>{@code stripe}: the body's top-level JSON {@code id}; {@code {json: a.b}}: the value at
 *       that dotted path. A string leaf is the key as is, an integer leaf its decimal text;
 *       any other leaf, a missing path or a body that is not JSON up to the path is no key.</li>
 *   <li>{@code body_sha256}: the lowercase hex SHA-256 of the raw body, 64 characters
 *       ({@link BodySha256Key}); every body has one.</li>
 *   <li>{@code none}: never a key.</li>
 * </ul>
 * Every key longer than {@value #MAX_KEY_BYTES} bytes of UTF-8 is replaced by
 * {@code sha256:<64 lowercase hex>} of its UTF-8 bytes ({@link #bounded(String)}).
 */
public final class DedupeKeys {

    /** Longest key stored as is, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 200;

    static final String GITHUB_HEADER = "X-GitHub-Delivery";
    static final String STANDARD_WEBHOOKS_HEADER = "webhook-id";
    static final String SVIX_HEADER = "svix-id";
    static final String SHOPIFY_HEADER = "X-Shopify-Webhook-Id";
    static final String STRIPE_PATH = "id";

    private static final DedupeKeyExtractor NO_KEY = (headers, body) -> null;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private DedupeKeys() {
    }

    /** {@link #create(DedupeSpec, String)} with error messages rooted at {@code dedupe}. */
    public static DedupeKeyExtractor create(DedupeSpec spec) {
        return create(spec, "dedupe");
    }

    /**
     * Parses one source's dedupe setting.
     *
     * @param keyPath the setting's key path for error messages, e.g. {@code sources.open.dedupe}
     * @throws IllegalArgumentException for a header kind without a valid header name or a json
     *         kind without a valid dotted path, naming the key path and the value
     */
    public static DedupeKeyExtractor create(DedupeSpec spec, String keyPath) {
        if (spec.kind() == null) {
            throw new IllegalArgumentException(keyPath + " must be one of github, standard_webhooks, svix, shopify, "
                    + "stripe, body_sha256, none, {header: NAME}, {json: PATH}, got null");
        }
        return switch (spec.kind()) {
            case GITHUB -> new HeaderKey(GITHUB_HEADER);
            case STANDARD_WEBHOOKS -> new HeaderKey(STANDARD_WEBHOOKS_HEADER);
            case SVIX -> new HeaderKey(SVIX_HEADER);
            case SHOPIFY -> new HeaderKey(SHOPIFY_HEADER);
            case STRIPE -> new JsonPathKey(new String[] {STRIPE_PATH});
            case HEADER -> {
                if (!Verifiers.isHeaderName(spec.argument())) {
                    throw new IllegalArgumentException(keyPath + ".header must be an HTTP header name, got " + quote(spec.argument()));
                }
                yield new HeaderKey(spec.argument());
            }
            case JSON -> new JsonPathKey(path(spec.argument(), keyPath));
            case BODY_SHA256 -> BodySha256Key.INSTANCE;
            case NONE -> NO_KEY;
        };
    }

    /**
     * {@code key} itself when it is at most {@value #MAX_KEY_BYTES} bytes of UTF-8, else
     * {@code sha256:} and the lowercase hex SHA-256 of its UTF-8 bytes (71 characters).
     */
    public static String bounded(String key) {
        if (key.length() * 3 <= MAX_KEY_BYTES) { // no char takes more than 3 bytes in UTF-8
            return key;
        }
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= MAX_KEY_BYTES) {
            return key;
        }
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(utf8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e); // every Java SE runtime has it
        }
        return "sha256:" + hex(digest);
    }

    /** Lowercase hex of {@code bytes}. */
    static String hex(byte[] bytes) {
        char[] out = new char[2 * bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    private static String[] path(String dotted, String keyPath) {
        String[] segments = dotted == null ? new String[0] : dotted.split("\\.", -1);
        boolean ok = segments.length > 0;
        for (String s : segments) {
            ok &= !s.isEmpty();
        }
        if (!ok) {
            throw new IllegalArgumentException(keyPath + ".json must be a dotted path of non-empty field names, got " + quote(dotted));
        }
        return segments;
    }

    private static String quote(String s) {
        return s == null ? "null" : '"' + s + '"';
    }
}

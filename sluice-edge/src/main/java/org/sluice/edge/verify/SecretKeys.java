package org.sluice.edge.verify;

import java.nio.charset.StandardCharsets;

/**
 * How a configured secret string becomes MAC key bytes. Every scheme uses the secret's
 * UTF-8 bytes as they are (Stripe's {@code whsec_...} included: Stripe signs with the whole
 * string), except {@code standard_webhooks}, whose secret is {@code whsec_<base64>}: the key
 * is the base64-decoded part. A standard_webhooks secret without the prefix is read as
 * base64 too, which is what the Standard Webhooks libraries do.
 */
final class SecretKeys {

    static final String WHSEC_PREFIX = "whsec_";

    private SecretKeys() {
    }

    /** The key bytes, or null when a standard_webhooks secret does not decode to at least one byte. */
    static byte[] keyBytes(String scheme, String secret) {
        if (!Verifiers.STANDARD_WEBHOOKS.equals(scheme)) {
            return secret.getBytes(StandardCharsets.UTF_8);
        }
        String encoded = secret.startsWith(WHSEC_PREFIX) ? secret.substring(WHSEC_PREFIX.length()) : secret;
        byte[] key = SignatureEncoding.base64(encoded);
        return key == null || key.length == 0 ? null : key;
    }
}

package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;

/**
 * One header carrying {@code prefix + encode(HMAC(secret, body))}, no timestamp. Serves
 * {@code github} (X-Hub-Signature-256, "sha256=", hex), {@code shopify}
 * (X-Shopify-Hmac-SHA256, no prefix, base64) and the custom {@code hmac} scheme.
 */
final class HeaderHmacVerifier implements Verifier {

    private static final byte[] NO_PREAMBLE = new byte[0];

    private final String header;
    private final String prefix;
    private final boolean base64;
    private final MacKeys keys;

    HeaderHmacVerifier(String header, String prefix, boolean base64, MacKeys keys) {
        this.header = header;
        this.prefix = prefix;
        this.base64 = base64;
        this.keys = keys;
    }

    @Override
    public VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds) {
        String value = headers.nonEmpty(header);
        if (value == null) {
            return MISSING_SIGNATURE;
        }
        if (!value.startsWith(prefix)) {
            return MALFORMED_SIGNATURE;
        }
        byte[] presented = base64
                ? SignatureEncoding.base64(value.substring(prefix.length()), keys.macLength())
                : SignatureEncoding.hex(value, prefix.length(), keys.macLength()); // read in place: no substring
        if (presented == null) {
            return MALFORMED_SIGNATURE;
        }
        return keys.matches(presented, NO_PREAMBLE, body) ? OK : NO_MATCH;
    }
}

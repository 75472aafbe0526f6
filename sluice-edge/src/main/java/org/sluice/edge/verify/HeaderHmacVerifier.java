package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;

/**
 * One header carrying {@code prefix + encode(HMAC(secret, body))}, no timestamp. Serves
 * {@code github} (X-Hub-Signature-256, "sha256=", hex), {@code shopify}
 * (X-Shopify-Hmac-SHA256, no prefix, base64) and the custom {@code hmac} scheme.
 *
 * @param header the header that carries the signature
 * @param prefix what stands before the encoded MAC ({@code ""}: nothing)
 * @param base64 the MAC is base64, else hex
 * @param keys   the source's secrets
 */
record HeaderHmacVerifier(String header, String prefix, boolean base64, MacKeys keys) implements Verifier {

    private static final byte[] NO_PREAMBLE = new byte[0];

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

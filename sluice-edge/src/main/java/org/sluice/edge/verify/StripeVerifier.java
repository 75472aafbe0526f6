package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;

/**
 * {@code Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...][,v0=...]}; each v1 is
 * HMAC-SHA256 over {@code "<t>." + body}. Items are comma-separated (spaces around them are
 * ignored, so several header lines joined with ", " still parse); unknown items such as v0
 * are ignored. Exactly one {@code t}; at most {@value #MAX_V1} v1 items.
 *
 * @param keys             the source's secrets
 * @param toleranceSeconds how far the signed timestamp may be from now
 */
record StripeVerifier(MacKeys keys, long toleranceSeconds) implements Verifier {

    static final String HEADER = "Stripe-Signature";
    static final int MAX_V1 = 16;

    @Override
    public VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds) {
        String value = headers.nonEmpty(HEADER);
        if (value == null) {
            return MISSING_SIGNATURE;
        }
        String t = null;
        byte[][] v1 = new byte[MAX_V1][];
        int count = 0;
        for (String raw : value.split(",", -1)) {
            String item = raw.trim();
            int eq = item.indexOf('=');
            if (eq <= 0) {
                return MALFORMED_SIGNATURE;
            }
            String key = item.substring(0, eq);
            String val = item.substring(eq + 1);
            if (key.equals("t")) {
                if (t != null) {
                    return MALFORMED_SIGNATURE;
                }
                t = val;
            } else if (key.equals("v1")) {
                if (count == MAX_V1) {
                    return MALFORMED_SIGNATURE;
                }
                byte[] sig = SignatureEncoding.hex(val, keys.macLength());
                if (sig == null) {
                    return MALFORMED_SIGNATURE;
                }
                v1[count++] = sig;
            }
        }
        long ts = SignatureEncoding.epochSeconds(t);
        if (ts < 0) {
            return MALFORMED_SIGNATURE;
        }
        if (!SignatureEncoding.withinTolerance(ts, nowEpochSeconds, toleranceSeconds)) {
            return TIMESTAMP_OUT_OF_TOLERANCE;
        }
        if (count == 0) {
            return NO_MATCH; // well-formed, but nothing this scheme can check (e.g. only v0)
        }
        byte[] preamble = (t + ".").getBytes(StandardCharsets.US_ASCII);
        return keys.matchesAny(v1, count, preamble, body) ? OK : NO_MATCH;
    }
}

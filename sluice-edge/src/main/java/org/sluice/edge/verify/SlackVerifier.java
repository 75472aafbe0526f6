package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;

/**
 * {@code X-Slack-Signature: v0=<hex>}, HMAC-SHA256 over
 * {@code "v0:" + X-Slack-Request-Timestamp + ":" + body}. A signature without its timestamp
 * header is malformed (it cannot be checked), not missing.
 *
 * @param keys             the source's secrets
 * @param toleranceSeconds how far the signed timestamp may be from now
 */
record SlackVerifier(MacKeys keys, long toleranceSeconds) implements Verifier {

    static final String SIGNATURE = "X-Slack-Signature";
    static final String TIMESTAMP = "X-Slack-Request-Timestamp";
    static final String VERSION = "v0";

    @Override
    public VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds) {
        String value = headers.nonEmpty(SIGNATURE);
        if (value == null) {
            return MISSING_SIGNATURE;
        }
        if (!value.startsWith(VERSION + "=")) {
            return MALFORMED_SIGNATURE;
        }
        byte[] presented = SignatureEncoding.hex(value.substring(VERSION.length() + 1), keys.macLength());
        String t = headers.get(TIMESTAMP);
        long ts = SignatureEncoding.epochSeconds(t);
        if (presented == null || ts < 0) {
            return MALFORMED_SIGNATURE;
        }
        if (!SignatureEncoding.withinTolerance(ts, nowEpochSeconds, toleranceSeconds)) {
            return TIMESTAMP_OUT_OF_TOLERANCE;
        }
        byte[] preamble = (VERSION + ":" + t + ":").getBytes(StandardCharsets.US_ASCII);
        return keys.matches(presented, preamble, body) ? OK : NO_MATCH;
    }
}

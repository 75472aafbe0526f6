package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Standard Webhooks: {@code webhook-signature} is a space-separated list of
 * {@code <version>,<base64>}; each {@code v1} is HMAC-SHA256 over
 * {@code "<webhook-id>.<webhook-timestamp>." + body} with the base64-decoded secret.
 * Other versions (e.g. the asymmetric {@code v1a}) are ignored. At most {@value #MAX_V1}
 * v1 entries. A signature without id or timestamp headers is malformed.
 */
final class StandardWebhooksVerifier implements Verifier {

    static final String ID = "webhook-id";
    static final String TIMESTAMP = "webhook-timestamp";
    static final String SIGNATURE = "webhook-signature";
    static final int MAX_V1 = 16;
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private final MacKeys keys;
    private final long toleranceSeconds;

    StandardWebhooksVerifier(MacKeys keys, long toleranceSeconds) {
        this.keys = keys;
        this.toleranceSeconds = toleranceSeconds;
    }

    @Override
    public VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds) {
        String value = headers.get(SIGNATURE);
        if (value == null || value.isBlank()) {
            return MISSING_SIGNATURE;
        }
        String id = headers.get(ID);
        String t = headers.get(TIMESTAMP);
        long ts = Codec.epochSeconds(t);
        if (id == null || id.isEmpty() || ts < 0) {
            return MALFORMED_SIGNATURE;
        }
        byte[][] v1 = new byte[MAX_V1][];
        int count = 0;
        for (String token : SPACES.split(value.trim())) {
            if (token.endsWith(",")) { // several header lines joined with ", "
                token = token.substring(0, token.length() - 1);
            }
            int comma = token.indexOf(',');
            if (comma <= 0) {
                return MALFORMED_SIGNATURE;
            }
            if (!token.startsWith("v1,")) {
                continue;
            }
            if (count == MAX_V1) {
                return MALFORMED_SIGNATURE;
            }
            byte[] sig = Codec.base64(token.substring(3), keys.macLength());
            if (sig == null) {
                return MALFORMED_SIGNATURE;
            }
            v1[count++] = sig;
        }
        if (!Codec.withinTolerance(ts, nowEpochSeconds, toleranceSeconds)) {
            return TIMESTAMP_OUT_OF_TOLERANCE;
        }
        if (count == 0) {
            return NO_MATCH; // well-formed, but no version this edge can check
        }
        byte[] preamble = (id + "." + t + ".").getBytes(StandardCharsets.UTF_8);
        return keys.matchesAny(v1, count, preamble, body) ? OK : NO_MATCH;
    }
}

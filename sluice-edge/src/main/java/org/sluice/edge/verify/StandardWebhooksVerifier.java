package org.sluice.edge.verify;

import static org.sluice.edge.verify.VerifyOutcome.MALFORMED_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.MISSING_SIGNATURE;
import static org.sluice.edge.verify.VerifyOutcome.NO_MATCH;
import static org.sluice.edge.verify.VerifyOutcome.OK;
import static org.sluice.edge.verify.VerifyOutcome.TIMESTAMP_OUT_OF_TOLERANCE;

import java.nio.charset.StandardCharsets;

/**
 * Standard Webhooks: {@code webhook-signature} is a list of entries separated by spaces (or
 * tabs), each {@code <version>,<signature>}; each {@code v1} signature is the base64
 * HMAC-SHA256 of {@code "<webhook-id>.<webhook-timestamp>." + body} under the base64-decoded
 * secret. A signature without id or timestamp headers is malformed.
 *
 * <p>Entries are judged one by one, as the scheme's reference libraries do, so one bad entry
 * cannot spoil a good one:
 * <ul>
 *   <li>runs of separators are one separator (empty entries do not exist);</li>
 *   <li>an entry without a comma, or with nothing before it, is skipped;</li>
 *   <li>an entry of another version (the asymmetric {@code v1a}, a future {@code v2}, or
 *       {@code V1}: tags are case-sensitive) is skipped;</li>
 *   <li>a {@code v1} signature runs to the next comma or the end of the entry (so header
 *       lines joined with {@code ", "} still parse, and text from a second comma on is
 *       ignored, as in the reference libraries); one that is not base64 of exactly 32 bytes
 *       is skipped;</li>
 *   <li>the request is genuine when any {@code v1} signature matches any secret.</li>
 * </ul>
 * An entry is well formed when it is a {@code v1} entry that decodes to 32 bytes, or an entry
 * of another version with a non-empty signature. A header with no well-formed entry at all
 * is malformed (the reference libraries would say "no match"; a reason that points at the
 * sender's formatting is the more useful answer). A header with well-formed entries but no
 * {@code v1} that matches is {@code no_match}.
 *
 * <p>Bounded work: at most {@value #MAX_ENTRIES} entries are examined; a header with more is
 * malformed, decided before any MAC is computed. A {@code v1} signature longer than the
 * base64 of 32 bytes is skipped without being decoded. Comparison is constant-time
 * ({@link MacKeys#matchesAny}).
 *
 * @param keys             the source's secrets
 * @param toleranceSeconds how far the signed timestamp may be from now
 */
record StandardWebhooksVerifier(MacKeys keys, long toleranceSeconds) implements Verifier {

    static final String ID = "webhook-id";
    static final String TIMESTAMP = "webhook-timestamp";
    static final String SIGNATURE = "webhook-signature";
    /** Most entries one {@code webhook-signature} header may hold. */
    static final int MAX_ENTRIES = 32;

    @Override
    public VerifyOutcome verify(HeaderLookup headers, byte[] body, long nowEpochSeconds) {
        String value = headers.get(SIGNATURE);
        if (value == null || value.isBlank()) {
            return MISSING_SIGNATURE;
        }
        String id = headers.get(ID);
        String t = headers.get(TIMESTAMP);
        long ts = SignatureEncoding.epochSeconds(t);
        if (id == null || id.isEmpty() || ts < 0) {
            return MALFORMED_SIGNATURE;
        }
        byte[][] v1 = new byte[MAX_ENTRIES][];
        int count = 0;
        int entries = 0;
        boolean wellFormed = false;
        int n = value.length();
        int i = 0;
        while (true) {
            while (i < n && isSeparator(value.charAt(i))) {
                i++;
            }
            if (i == n) {
                break;
            }
            int start = i;
            while (i < n && !isSeparator(value.charAt(i))) {
                i++;
            }
            if (++entries > MAX_ENTRIES) {
                return MALFORMED_SIGNATURE;
            }
            int end = i;
            int comma = comma(value, start, end);
            if (comma == start || comma == end) {
                continue; // no version: not an entry
            }
            int sigEnd = comma(value, comma + 1, end);
            if (comma - start != 2 || !value.startsWith("v1", start)) {
                wellFormed |= sigEnd > comma + 1; // a version this edge does not check
                continue;
            }
            if (sigEnd - (comma + 1) > SignatureEncoding.paddedBase64Length(keys.macLength())) {
                continue; // too long to be a MAC of this length: not copied, not decoded
            }
            byte[] sig = SignatureEncoding.base64(value.substring(comma + 1, sigEnd), keys.macLength());
            if (sig != null) {
                v1[count++] = sig;
                wellFormed = true;
            }
        }
        if (!wellFormed) {
            return MALFORMED_SIGNATURE;
        }
        if (!SignatureEncoding.withinTolerance(ts, nowEpochSeconds, toleranceSeconds)) {
            return TIMESTAMP_OUT_OF_TOLERANCE;
        }
        if (count == 0) {
            return NO_MATCH; // well-formed, but no version this edge can check
        }
        byte[] preamble = (id + "." + t + ".").getBytes(StandardCharsets.UTF_8);
        return keys.matchesAny(v1, count, preamble, body) ? OK : NO_MATCH;
    }

    /** The index of the first comma in {@code s[from, to)}, or {@code to}: never reads past the entry. */
    private static int comma(String s, int from, int to) {
        int i = from;
        while (i < to && s.charAt(i) != ',') {
            i++;
        }
        return i;
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t';
    }
}

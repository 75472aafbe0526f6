package org.sluice.edge.telemetry;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;

/**
 * The W3C Trace Context {@code traceparent} field, version 00:
 * {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}, as Sluice stores it with a
 * hook and sends it with an attempt. A stored value is read as strictly as a received one:
 * anything else (a record from a later version, a damaged one) reads as no context.
 */
final class Traceparent {

    static final String HEADER = "traceparent";
    private static final int LENGTH = 55;

    private Traceparent() {
    }

    /** {@code context} as a {@code traceparent} value, or null when it is not a valid context. */
    static String format(SpanContext context) {
        if (!context.isValid()) {
            return null;
        }
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
    }

    /** The remote context {@code value} names, or {@link SpanContext#getInvalid()} for null or a malformed value. */
    static SpanContext parse(String value) {
        if (value == null || value.length() != LENGTH || value.charAt(2) != '-' || value.charAt(35) != '-'
                || value.charAt(52) != '-' || !value.startsWith("00")) {
            return SpanContext.getInvalid();
        }
        String flags = value.substring(53);
        if (!isLowerHex(flags)) {
            return SpanContext.getInvalid();
        }
        // createFromRemoteParent checks the ids (lower-case hex, not all zeros) and answers invalid otherwise
        return SpanContext.createFromRemoteParent(value.substring(3, 35), value.substring(36, 52),
                TraceFlags.fromHex(flags, 0), TraceState.getDefault());
    }

    private static boolean isLowerHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}

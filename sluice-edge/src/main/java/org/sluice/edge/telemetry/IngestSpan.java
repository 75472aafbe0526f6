package org.sluice.edge.telemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.util.Locale;

/**
 * The span of one hook's ingest, from the moment its body has been read to its answer:
 * verification, admission and the commit are its events, in that order, each with what it
 * came to. Its {@link #traceparent()} is kept with the hook, so that every delivery attempt
 * joins the trace (docs/operations.md, "Traces").
 *
 * <p>{@link #NONE}, the span when tracing is off, does nothing: each method returns at once,
 * allocating nothing, so the ingest path costs what it did without tracing.
 *
 * <p>Used by the one thread that runs a hook's stage at a time (the stage hands it on with
 * the hook), so it needs no lock; the SDK's span is thread-safe anyway.
 */
public final class IngestSpan {

    /** The span when tracing is off. */
    public static final IngestSpan NONE = new IngestSpan(null);

    static final AttributeKey<String> TENANT = AttributeKey.stringKey("sluice.tenant");
    static final AttributeKey<String> SOURCE = AttributeKey.stringKey("sluice.source");
    static final AttributeKey<String> HOOK_ID = AttributeKey.stringKey("sluice.hook.id");
    static final AttributeKey<String> VERIFICATION = AttributeKey.stringKey("sluice.verification");
    static final AttributeKey<String> ADMISSION = AttributeKey.stringKey("sluice.admission");
    static final AttributeKey<String> COMMIT = AttributeKey.stringKey("sluice.commit");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("sluice.outcome");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");

    private final Span span;

    IngestSpan(Span span) {
        this.span = span;
    }

    /** Verification's result: {@code ok}, or the reason it failed (a fixed word, never request data). */
    public void verified(String result) {
        if (span != null) {
            span.addEvent("verification", Attributes.of(VERIFICATION, result));
        }
    }

    /** Admission's answer ({@code admitted}, {@code refused}, {@code duplicate}, {@code pending}: the constant's name, lower-case). */
    public void admission(Enum<?> answer) {
        if (span != null) {
            span.addEvent("admission", Attributes.of(ADMISSION, word(answer)));
        }
    }

    /** The commit's result ({@code accepted}, {@code duplicate}, ...) and the hook's id (null when it has none). */
    public void committed(Enum<?> result, String hookId) {
        if (span != null) {
            span.addEvent("commit", hookId == null ? Attributes.of(COMMIT, word(result))
                    : Attributes.of(COMMIT, word(result), HOOK_ID, hookId));
            if (hookId != null) {
                span.setAttribute(HOOK_ID, hookId);
            }
        }
    }

    private static String word(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    /** The {@code traceparent} to keep with the hook, or null when tracing is off. */
    public String traceparent() {
        return span == null ? null : Traceparent.format(span.getSpanContext());
    }

    /** Ends the span with the request's outcome (a fixed word) and status; a 5xx marks it as an error. */
    public void end(String outcome, int status) {
        if (span != null) {
            span.setAttribute(OUTCOME, outcome);
            span.setAttribute(HTTP_STATUS, status);
            if (status >= 500) {
                span.setStatus(StatusCode.ERROR, outcome);
            }
            span.end();
        }
    }
}

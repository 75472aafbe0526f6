package org.sluice.edge.telemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.store.StoredHook;

/**
 * A transport whose every attempt has a span, {@code sluice.deliver}: a child of the hook's
 * ingest span (the {@code traceparent} kept with the hook) and linked to it, so one trace
 * holds the hook's ingest and all its attempts, made on any node at any time. A hook kept
 * without one (ingested with tracing off) gets a trace of its own per attempt.
 *
 * <p>The hook handed to the transport carries the attempt span's {@code traceparent}, which
 * {@code OutboundHeaders} sends (an HTTP header, a Kafka record header, a NATS message
 * header). The span ends when the attempt's outcome is known, before the dispatcher sees it.
 * The outcome's error text is not recorded: it can quote a destination's answer.
 */
final class TracedTransport implements Transport {

    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("sluice.destination");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("sluice.attempt");
    static final AttributeKey<String> RESULT = AttributeKey.stringKey("sluice.attempt.result");

    private final Transport transport;
    private final Tracer tracer;
    private final SpanKind kind;

    TracedTransport(Transport transport, Tracer tracer, SpanKind kind) {
        this.transport = transport;
        this.tracer = tracer;
        this.kind = kind;
    }

    @Override
    public void register(Destination destination) {
        transport.register(destination);
    }

    @Override
    public CompletableFuture<AttemptOutcome> send(Destination destination, StoredHook hook, int attempt, long nowMillis) {
        SpanContext ingest = Traceparent.parse(hook.traceparent());
        SpanBuilder builder = tracer.spanBuilder("sluice.deliver").setSpanKind(kind)
                .setAttribute(IngestSpan.HOOK_ID, hook.id())
                .setAttribute(IngestSpan.SOURCE, hook.source())
                .setAttribute(DESTINATION, destination.name())
                .setAttribute(ATTEMPT, attempt);
        if (hook.tenant() != null) {
            builder.setAttribute(IngestSpan.TENANT, hook.tenant());
        }
        if (ingest.isValid()) {
            builder.setParent(Context.root().with(Span.wrap(ingest))).addLink(ingest);
        } else {
            builder.setNoParent();
        }
        Span span = builder.startSpan();
        String carried = Traceparent.format(span.getSpanContext());
        return transport.send(destination, hook.withTraceparent(carried != null ? carried : hook.traceparent()),
                attempt, nowMillis).whenComplete((outcome, failure) -> ended(span, outcome));
    }

    private static void ended(Span span, AttemptOutcome outcome) {
        if (outcome == null) { // a transport's futures never fail; kept whole should one ever do
            span.setStatus(StatusCode.ERROR, "no outcome");
        } else {
            AttemptResult result = outcome.result();
            span.setAttribute(RESULT, resultName(result));
            if (result instanceof AttemptResult.Answered a) {
                span.setAttribute(IngestSpan.HTTP_STATUS, a.status());
            }
            boolean delivered = result instanceof AttemptResult.Acknowledged
                    || (result instanceof AttemptResult.Answered a && a.status() >= 200 && a.status() < 300);
            if (!delivered) { // an answer outside 2xx, no answer, a refusal: the attempt did not deliver
                span.setStatus(StatusCode.ERROR, "not delivered");
            }
        }
        span.end();
    }

    /** A fixed word for {@code result} (an attribute value never taken from an answer). */
    static String resultName(AttemptResult result) {
        if (result instanceof AttemptResult.Answered) {
            return "answered";
        } else if (result instanceof AttemptResult.Acknowledged) {
            return "acknowledged";
        } else if (result instanceof AttemptResult.Failed f) {
            return "failed_" + f.failure().name().toLowerCase(Locale.ROOT);
        } else if (result instanceof AttemptResult.Permanent) {
            return "permanent";
        }
        return "untransformable";
    }

    @Override
    public void flush() {
        transport.flush();
    }

    @Override
    public void close() {
        transport.close();
    }
}

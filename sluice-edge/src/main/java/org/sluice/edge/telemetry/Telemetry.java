package org.sluice.edge.telemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.sluice.edge.config.TelemetryConfig;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.delivery.targets.Target;
import org.sluice.edge.verify.HeaderLookup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's tracer: the OpenTelemetry SDK, its spans batched and exported over OTLP/HTTP
 * (protobuf) to {@code telemetry.otlp.endpoint}, new traces sampled at
 * {@code telemetry.sampling_ratio} and a received trace's own sampled flag followed
 * (parent-based). The resource names the service {@code sluice} and the node's id.
 *
 * <p>{@link #off()} (no endpoint, the default) holds no SDK object: no exporter thread, no
 * connection, and the ingest path gets {@link IngestSpan#NONE}. One instance per server,
 * started before the dispatcher and closed after it, so the last attempts' spans are
 * exported. Thread-safe.
 */
public final class Telemetry implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Telemetry.class);
    private static final Telemetry OFF = new Telemetry(null, null);
    /** How long {@link #close()} waits for the spans still queued to be exported. */
    private static final long CLOSE_SECONDS = 10;
    private static final TextMapGetter<HeaderLookup> RECEIVED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(HeaderLookup carrier) {
            return List.of(Traceparent.HEADER, "tracestate");
        }

        @Override
        public String get(HeaderLookup carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final SdkTracerProvider provider;
    private final Tracer tracer;

    private Telemetry(SdkTracerProvider provider, Tracer tracer) {
        this.provider = provider;
        this.tracer = tracer;
    }

    /** No tracing: nothing is started, and every span is a no-op. */
    public static Telemetry off() {
        return OFF;
    }

    /**
     * The tracer {@code config} asks for, or {@link #off()} when it names no endpoint.
     *
     * @param nodeId {@code node.id}, the resource's {@code service.instance.id}
     */
    public static Telemetry start(TelemetryConfig config, String nodeId) {
        if (!config.tracing()) {
            return OFF;
        }
        String built = Telemetry.class.getPackage().getImplementationVersion();
        String version = built == null ? "dev" : built; // the resource's service.version
        String url = config.tracesUrl().orElseThrow();
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(url)
                .setTimeout(Duration.ofSeconds(10)).build();
        Resource resource = Resource.getDefault().merge(Resource.create(Attributes.builder()
                .put("service.name", "sluice").put("service.instance.id", nodeId).put("service.version", version)
                .build()));
        SdkTracerProvider provider = SdkTracerProvider.builder().setResource(resource)
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(config.samplingRatio())))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
                .build();
        LOG.info("tracing: spans exported over OTLP/HTTP to {}, new traces sampled at {}", url, config.samplingRatio());
        return new Telemetry(provider, provider.get("org.sluice.edge", version));
    }

    /** True when spans are recorded and exported. */
    public boolean on() {
        return provider != null;
    }

    /**
     * Starts the ingest span of a hook of {@code tenant} (null when it has none) on
     * {@code source}: a child of the request's {@code traceparent} when it has a valid one (its
     * {@code tracestate} kept), else the root of a new trace. {@link IngestSpan#NONE} when off.
     */
    public IngestSpan startIngest(HeaderLookup headers, String tenant, String source) {
        if (provider == null) {
            return IngestSpan.NONE;
        }
        Context received = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, RECEIVED);
        var builder = tracer.spanBuilder("sluice.ingest").setSpanKind(SpanKind.SERVER).setParent(received)
                .setAttribute(IngestSpan.SOURCE, source);
        if (tenant != null) {
            builder.setAttribute(IngestSpan.TENANT, tenant);
        }
        return new IngestSpan(builder.startSpan());
    }

    /**
     * {@code transport} with a span per attempt ({@link TracedTransport}), or {@code transport}
     * itself when off.
     */
    public Transport traced(Transport transport, Target.Kind kind) {
        if (provider == null) {
            return transport;
        }
        return new TracedTransport(transport, tracer, kind == Target.Kind.HTTP ? SpanKind.CLIENT : SpanKind.PRODUCER);
    }

    /** Exports the spans still queued (waiting at most {@value #CLOSE_SECONDS} s), then stops the exporter. */
    @Override
    public void close() {
        if (provider == null) {
            return;
        }
        CompletableResultCode done = provider.shutdown().join(CLOSE_SECONDS, TimeUnit.SECONDS);
        if (!done.isSuccess()) {
            LOG.warn("tracing: the last spans could not be exported within {} s", CLOSE_SECONDS);
        }
    }
}

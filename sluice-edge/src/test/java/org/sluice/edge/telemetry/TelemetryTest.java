package org.sluice.edge.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.edge.config.TelemetryConfig;
import org.sluice.edge.delivery.targets.Target;

/** Off costs nothing; the traceparent kept with a hook is read as strictly as a received one. */
class TelemetryTest {

    @Test
    void withoutAnEndpointNothingStartsAndTheIngestSpanIsTheSharedNoOp() {
        Telemetry off = Telemetry.start(TelemetryConfig.defaults(), "n");
        assertThat(off).isSameAs(Telemetry.off());
        assertThat(off.on()).isFalse();
        // the same instance for every hook: the ingest path allocates nothing for tracing when it is off
        IngestSpan span = off.startIngest(Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")::get,
                "t", "s");
        assertThat(span).isSameAs(IngestSpan.NONE);
        span.verified("ok");
        span.admission(Target.Kind.HTTP);
        span.committed(Target.Kind.HTTP, "id");
        span.end("accepted", 202);
        assertThat(span.traceparent()).isNull();
        off.close();
    }

    @Test
    void aTraceparentRoundTripsAndAnythingMalformedIsNoContext() {
        SpanContext c = SpanContext.createFromRemoteParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7",
                TraceFlags.getSampled(), TraceState.getDefault());
        String value = Traceparent.format(c);
        assertThat(value).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(Traceparent.parse(value)).isEqualTo(c);
        assertThat(Traceparent.format(SpanContext.getInvalid())).isNull();
        for (String bad : new String[] {null, "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",
                "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}) {
            assertThat(Traceparent.parse(bad).isValid()).as(String.valueOf(bad)).isFalse();
        }
    }
}

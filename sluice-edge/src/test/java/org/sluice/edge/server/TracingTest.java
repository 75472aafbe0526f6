package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.telemetry.OtlpReceiver;
import org.sluice.testkit.HookReceiver;

/**
 * Traces against a real OTLP/HTTP endpoint ({@link OtlpReceiver} decodes what the SDK's
 * exporter posts): one trace per hook, its ingest span continuing the request's
 * {@code traceparent}, its delivery attempt a child of the ingest span and linked to it, and
 * the attempt's {@code traceparent} at the receiver. The server is closed before the spans are
 * read: closing exports every span still queued, so no test waits on the export's schedule.
 */
class TracingTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALLER_SPAN = "00f067aa0ba902b7";

    @TempDir
    Path dir;

    private static String config(HookReceiver receiver, OtlpReceiver otlp, String ratio) {
        return """
                http: {listen: "127.0.0.1:0"}
                telemetry:
                  otlp: {endpoint: "%s"}
                  %s
                destinations:
                  app: {url: "%s"}
                sources:
                  a: {verify: {scheme: none}, deliver_to: [app]}
                """.formatted(otlp.endpoint(), ratio == null ? "" : "sampling_ratio: " + ratio, receiver.uri("/in"));
    }

    /** Posts a hook and waits until its one delivery is recorded delivered; returns its id. */
    private static String deliverOne(TestEdge edge, HookReceiver receiver, Map<String, String> headers) throws Exception {
        Http.Response r = edge.post("/hooks/a", headers, "{\"n\":1}");
        assertThat(r.status()).isEqualTo(202);
        String id = r.body().replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
        receiver.awaitRequests(1, Duration.ofSeconds(30));
        TestEdge.await(() -> edge.backends().store().deliveries().deliveries(id).stream()
                .map(DeliveryRow::state).allMatch(s -> s == DeliveryState.DELIVERED));
        return id;
    }

    @Test
    void aHookIsOneTraceContinuingItsTraceparentWithTheAttemptAChildOfTheIngestAndLinkedToIt() throws Exception {
        String id;
        String sent;
        try (OtlpReceiver otlp = OtlpReceiver.start(); HookReceiver receiver = HookReceiver.start()) {
            try (TestEdge edge = TestEdge.start(dir, config(receiver, otlp, null))) {
                id = deliverOne(edge, receiver, Map.of("traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01",
                        "Content-Type", "application/json"));
                sent = receiver.received().get(0).header("traceparent");
            }
            // closed: every span was exported
            List<Span> ingests = otlp.spans("sluice.ingest");
            List<Span> attempts = otlp.spans("sluice.deliver");
            assertThat(ingests).hasSize(1);
            assertThat(attempts).hasSize(1);
            assertThat(otlp.services()).contains("sluice");

            Span ingest = ingests.get(0);
            assertThat(OtlpReceiver.hex(ingest.getTraceId())).isEqualTo(TRACE_ID);
            assertThat(OtlpReceiver.hex(ingest.getParentSpanId())).isEqualTo(CALLER_SPAN);
            assertThat(ingest.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
            assertThat(ingest.getEventsList()).extracting(Span.Event::getName)
                    .containsExactly("verification", "admission", "commit");
            assertThat(attribute(ingest, "sluice.hook.id")).contains(id);
            assertThat(attribute(ingest, "sluice.source")).contains("a");
            assertThat(attribute(ingest, "sluice.outcome")).contains("accepted");
            assertThat(ingest.getAttributesList()).anyMatch(kv -> kv.getKey().equals("http.response.status_code")
                    && kv.getValue().getIntValue() == 202);

            Span attempt = attempts.get(0);
            assertThat(OtlpReceiver.hex(attempt.getTraceId())).isEqualTo(TRACE_ID);
            assertThat(attempt.getParentSpanId()).isEqualTo(ingest.getSpanId());
            assertThat(attempt.getLinksList()).hasSize(1);
            assertThat(attempt.getLinks(0).getTraceId()).isEqualTo(ingest.getTraceId());
            assertThat(attempt.getLinks(0).getSpanId()).isEqualTo(ingest.getSpanId());
            assertThat(attempt.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
            assertThat(attribute(attempt, "sluice.hook.id")).contains(id);
            assertThat(attribute(attempt, "sluice.destination")).contains("app");
            assertThat(attribute(attempt, "sluice.attempt.result")).contains("answered");

            // the receiver got the attempt span's context, sampled
            assertThat(sent).isEqualTo("00-" + TRACE_ID + "-" + OtlpReceiver.hex(attempt.getSpanId()) + "-01");
        }
    }

    @Test
    void eachAttemptIsASpanOfItsOwnUnderTheOneIngestSpanAndSendsItsOwnTraceparent() throws Exception {
        try (OtlpReceiver otlp = OtlpReceiver.start(); HookReceiver receiver = HookReceiver.start()) {
            receiver.plan(HookReceiver.Answer.status(503)); // the first attempt fails, the retry is answered 200
            List<HookReceiver.Received> got;
            try (TestEdge edge = TestEdge.start(dir, config(receiver, otlp, null).replace("app: {url: \"%s\"}"
                    .formatted(receiver.uri("/in")), "app: {url: \"%s\", retry: {initial_ms: 1}}".formatted(receiver.uri("/in"))))) {
                Http.Response r = edge.post("/hooks/a", Map.of(), "{}");
                String id = r.body().replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
                receiver.awaitRequests(1, Duration.ofSeconds(30));
                TestEdge.await(() -> { // the retry is due once the node's clock has moved on
                    edge.clock.advance(Duration.ofSeconds(1));
                    edge.backends().dispatcher().wake();
                    return receiver.requestCount() >= 2;
                });
                TestEdge.await(() -> edge.backends().store().deliveries().deliveries(id).stream()
                        .map(DeliveryRow::state).allMatch(s -> s == DeliveryState.DELIVERED));
                got = receiver.received();
            }
            Span ingest = otlp.spans("sluice.ingest").get(0);
            List<Span> attempts = otlp.spans("sluice.deliver").stream()
                    .sorted(java.util.Comparator.comparing(s -> attribute(s, "sluice.attempt").orElseThrow())).toList();
            assertThat(attempts).hasSize(2);
            for (int i = 0; i < 2; i++) {
                Span attempt = attempts.get(i);
                assertThat(attribute(attempt, "sluice.attempt")).contains(String.valueOf(i + 1));
                assertThat(attempt.getTraceId()).isEqualTo(ingest.getTraceId());
                assertThat(attempt.getParentSpanId()).isEqualTo(ingest.getSpanId());
                assertThat(attempt.getLinks(0).getSpanId()).isEqualTo(ingest.getSpanId());
                assertThat(got.get(i).header("traceparent")).isEqualTo("00-" + OtlpReceiver.hex(ingest.getTraceId()) + "-"
                        + OtlpReceiver.hex(attempt.getSpanId()) + "-" + String.format("%02x", attempt.getFlags() & 0xff));
                assertThat(attempt.getFlags() & 0x01).as("sampled").isEqualTo(1);
            }
            assertThat(attempts.get(0).getStatus().getCode()).isEqualTo(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR);
            assertThat(attribute(attempts.get(0), "http.response.status_code")).contains("503");
            assertThat(attribute(attempts.get(1), "http.response.status_code")).contains("200");
            assertThat(attempts.get(0).getSpanId()).isNotEqualTo(attempts.get(1).getSpanId());
        }
    }

    @Test
    void aHookWithoutTraceparentStartsATraceOfItsOwn() throws Exception {
        try (OtlpReceiver otlp = OtlpReceiver.start(); HookReceiver receiver = HookReceiver.start()) {
            try (TestEdge edge = TestEdge.start(dir, config(receiver, otlp, "1.0"))) {
                deliverOne(edge, receiver, Map.of());
            }
            Span ingest = otlp.spans("sluice.ingest").get(0);
            Span attempt = otlp.spans("sluice.deliver").get(0);
            assertThat(ingest.getParentSpanId().isEmpty()).isTrue();
            assertThat(attempt.getTraceId()).isEqualTo(ingest.getTraceId());
            assertThat(attempt.getParentSpanId()).isEqualTo(ingest.getSpanId());
        }
    }

    @Test
    void atRatioZeroNothingIsExportedAndTheAttemptStillCarriesAnUnsampledTraceparent() throws Exception {
        try (OtlpReceiver otlp = OtlpReceiver.start(); HookReceiver receiver = HookReceiver.start()) {
            String sent;
            try (TestEdge edge = TestEdge.start(dir, config(receiver, otlp, "0"))) {
                deliverOne(edge, receiver, Map.of());
                sent = receiver.received().get(0).header("traceparent");
            }
            // the sampled bit (01) clear; the SDK may set the random-trace-id bit (02) of Trace Context level 2
            assertThat(sent).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[02]");
            assertThat(otlp.spans()).isEmpty(); // closed: whatever had been recorded was exported by now
        }
    }

    @Test
    void withTracingOffNoTraceparentIsAddedAndNoneIsStored() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, """
                     http: {listen: "127.0.0.1:0"}
                     destinations:
                       app: {url: "%s"}
                     sources:
                       a: {verify: {scheme: none}, deliver_to: [app]}
                     """.formatted(receiver.uri("/in")))) {
            String id = deliverOne(edge, receiver, Map.of());
            assertThat(receiver.received().get(0).header("traceparent")).isNull();
            assertThat(edge.backends().store().get(id).orElseThrow().traceparent()).isNull();
        }
    }

    private static Optional<String> attribute(Span span, String key) {
        return span.getAttributesList().stream().filter(kv -> kv.getKey().equals(key)).findFirst()
                .map(KeyValue::getValue).map(v -> v.hasStringValue() ? v.getStringValue() : String.valueOf(v.getIntValue()));
    }
}

/**
 * The node's traces (issue 47; docs/operations.md, "Traces"): one trace per hook, a span for
 * its ingest ({@link org.sluice.edge.telemetry.IngestSpan}, with verification, admission and
 * the commit as events) and a span per delivery attempt, a child of the ingest span and linked
 * to it ({@code TracedTransport}), whose {@code traceparent} the attempt carries. The ingest
 * span's {@code traceparent} travels with the hook through the store (both kinds keep it with
 * the hook's record), so an attempt made later, or on another node, joins the same trace.
 *
 * <p>{@link org.sluice.edge.telemetry.Telemetry} owns the OpenTelemetry SDK and its OTLP/HTTP
 * exporter; with {@code telemetry.otlp.endpoint} unset it is {@link
 * org.sluice.edge.telemetry.Telemetry#off()}, which builds nothing of the SDK (no exporter,
 * no thread, no connection), and the ingest path's calls into it are constant no-ops that
 * allocate nothing.
 *
 * <p>May use the OpenTelemetry API and SDK, the delivery seam ({@code delivery}: the
 * {@code Transport} it wraps), the store's hook values, {@code verify}'s header lookup and
 * {@code config}'s {@code TelemetryConfig}. Used by {@code http} (the ingest span) and
 * {@code server} (which starts it and wraps each transport).
 */
package org.sluice.edge.telemetry;

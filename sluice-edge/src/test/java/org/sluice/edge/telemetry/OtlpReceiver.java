package org.sluice.edge.telemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * A real OTLP/HTTP endpoint for tests: a JDK HTTP server on loopback that takes
 * {@code POST /v1/traces}, decodes each body as an {@code ExportTraceServiceRequest} with the
 * protocol's own classes, keeps its spans and answers 200 with an empty
 * {@code ExportTraceServiceResponse}, as a collector does. Anything else is answered 404 or
 * 400, so an exporter that sent the wrong thing would show as missing spans.
 */
public final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final List<Span> spans = new ArrayList<>();
    private final List<String> resourceServices = new ArrayList<>();
    private int requests;

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    public static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/v1/traces", receiver::handle);
        server.start();
        return receiver;
    }

    /** The base endpoint, as {@code telemetry.otlp.endpoint} takes it ({@code /v1/traces} is added). */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())
                    || !"application/x-protobuf".equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            InputStream in = exchange.getRequestBody();
            if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                in = new GZIPInputStream(in);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in);
            synchronized (this) {
                requests++;
                for (ResourceSpans rs : request.getResourceSpansList()) {
                    rs.getResource().getAttributesList().stream().filter(a -> a.getKey().equals("service.name"))
                            .forEach(a -> resourceServices.add(a.getValue().getStringValue()));
                    for (ScopeSpans ss : rs.getScopeSpansList()) {
                        spans.addAll(ss.getSpansList());
                    }
                }
                notifyAll();
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    /** Every span received so far, in arrival order. */
    public synchronized List<Span> spans() {
        return List.copyOf(spans);
    }

    /** The spans named {@code name}. */
    public synchronized List<Span> spans(String name) {
        return spans.stream().filter(s -> s.getName().equals(name)).toList();
    }

    /** The {@code service.name} of every resource received. */
    public synchronized List<String> services() {
        return List.copyOf(resourceServices);
    }

    /** Export requests received (each a decoded {@code ExportTraceServiceRequest}). */
    public synchronized int requests() {
        return requests;
    }

    /** Lower-case hex of an id as OTLP carries it (bytes). */
    public static String hex(com.google.protobuf.ByteString id) {
        return HexFormat.of().formatHex(id.toByteArray());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

package org.sluice.edge.route;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A destination's {@code transform:}: how an attempt is reshaped before it is sent. Each part
 * is optional: the {@code method}, the URL's {@code path} and {@code query} (templates whose
 * placeholder values are percent-encoded), {@code headers} (templates, added or replacing the
 * same name) and the {@code body} (a JSON template: a string that is one placeholder becomes
 * that JSON value, any other string is filled as text; keys, numbers, booleans and nulls are
 * written as they are).
 *
 * <h2>Why declarative</h2>
 * A template cannot loop, call out, read a file, open a socket or start a thread: there is no
 * code to sandbox, and its work is linear in what it writes. So the bounds hold by
 * construction and are checked as it runs: every part ticks the clock against
 * {@code time_limit_ms} and every byte written counts against {@code max_output_bytes}, which
 * also bounds its memory (the parsed body is bounded by the source's body limit and
 * {@link HookFacts#MAX_DEPTH}). A script engine (JavaScript on GraalJS) would reshape more
 * freely, but needs a sandbox whose heap bound the community edition does not enforce.
 *
 * <p>{@link #apply} never throws for a hook: a transformation that cannot finish (a path that
 * finds nothing, a body that is not JSON, a header value with a control character, the time
 * limit, the output bound) is a {@link Outcome.Failed} with the reason. Immutable and
 * thread-safe.
 */
public final class Transform {

    /** Default {@code time_limit_ms}. */
    public static final long DEFAULT_TIME_LIMIT_MS = 50;
    /** Default {@code max_output_bytes}: 1 MiB. */
    public static final long DEFAULT_MAX_OUTPUT_BYTES = 1L << 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String method;
    private final Template path;
    private final Map<String, Template> query;
    private final Map<String, Template> headers;
    private final Object body;
    private final long timeLimitMs;
    private final long maxOutputBytes;

    Transform(String method, Template path, Map<String, Template> query, Map<String, Template> headers, Object body,
              long timeLimitMs, long maxOutputBytes) {
        this.method = method;
        this.path = path;
        this.query = query == null ? null : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(query));
        this.headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        this.body = body;
        this.timeLimitMs = timeLimitMs;
        this.maxOutputBytes = maxOutputBytes;
    }

    /** What a transformation reads of a hook. */
    public record Input(String hookId, String tenant, String source, byte[] body) {
    }

    /**
     * The reshaped parts of one attempt; each null (or empty) part is left as it was.
     *
     * @param method  the HTTP method, or null for {@code POST}
     * @param path    the URL's path, percent-encoded, starting with {@code /}; null: the URL's
     * @param query   the URL's query without {@code ?}, percent-encoded; null: the URL's
     * @param headers (lower-case name, value) pairs to add, each replacing a header of its name
     * @param body    the body to send (JSON), or null for the hook's body as received
     */
    public record Request(String method, String path, String query, List<Map.Entry<String, String>> headers,
                          byte[] body) {
        public Request {
            headers = List.copyOf(headers);
        }

        /** The request target (path and query) for a destination at {@code url}, reshaped where this sets it. */
        public String target(java.net.URI url) {
            String raw = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
            String p = path != null ? path : raw;
            String q = query != null ? query : url.getRawQuery();
            return q == null || q.isEmpty() ? p : p + "?" + q;
        }
    }

    /** What applying a transformation came to: a request, or a failure with its reason. */
    public sealed interface Outcome permits Outcome.Shaped, Outcome.Failed {
        /** The attempt as reshaped. */
        record Shaped(Request request) implements Outcome {
        }

        /** The transformation could not finish: the delivery is dead with {@code transform_error}. */
        record Failed(String reason) implements Outcome {
        }
    }

    /** Reshapes one attempt of {@code hook}, timing itself with {@code nanoTime}. */
    public Outcome apply(Input hook, LongSupplier nanoTime) {
        Shaping s = new Shaping(hook, nanoTime, timeLimitMs, maxOutputBytes);
        try {
            String p = path == null ? null : path.render(s, Transform::percent);
            String q = null;
            if (query != null) {
                StringBuilder out = new StringBuilder();
                for (Map.Entry<String, Template> e : query.entrySet()) {
                    String key = percent(e.getKey());
                    s.charge(key.length() + (out.length() == 0 ? 1 : 2)); // the key, '=' and '&' are output too
                    out.append(out.length() == 0 ? "" : "&").append(key).append('=')
                            .append(e.getValue().render(s, Transform::percent));
                }
                q = out.toString();
            }
            List<Map.Entry<String, String>> h = new ArrayList<>();
            for (Map.Entry<String, Template> e : headers.entrySet()) {
                String value = e.getValue().render(s, v -> v);
                String bad = badHeaderValue(value);
                if (bad != null) {
                    throw new Shaping.Failure("header " + e.getKey() + " " + bad);
                }
                h.add(Map.entry(e.getKey(), value));
            }
            byte[] b = body == null ? null : body(s);
            return new Outcome.Shaped(new Request(method, p, q, h, b));
        } catch (Shaping.Failure f) {
            return new Outcome.Failed(f.getMessage());
        }
    }

    /**
     * The clock a transformation's time limit is counted on: the calling thread's CPU time
     * where the JVM measures it (so a run is not charged for waiting on a busy machine), else
     * the monotonic wall clock.
     */
    public static LongSupplier cpuClock() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        if (threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled()) {
            return threads::getCurrentThreadCpuTime;
        }
        return System::nanoTime;
    }

    /**
     * Runs the transformation once on an empty hook and forgets the outcome, so that the
     * classes it uses are loaded before the first real attempt counts against its time limit.
     */
    public void warmUp() {
        apply(new Input("warm-up", "", "", "{}".getBytes(StandardCharsets.UTF_8)), System::nanoTime);
    }

    /** True when it replaces the body (the attempt then carries {@code content-type: application/json}). */
    public boolean shapesBody() {
        return body != null;
    }

    /** The configured header names, lower-case. */
    public List<String> headerNames() {
        return List.copyOf(headers.keySet());
    }

    private byte[] body(Shaping s) throws Shaping.Failure {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream bounded = s.bounded(bytes);
             JsonGenerator g = JSON.getFactory().createGenerator(bounded)) {
            write(g, body, s);
        } catch (Shaping.Overrun o) {
            throw o.failure();
        } catch (IOException e) {
            throw new Shaping.Failure("could not write the body: " + e.getMessage());
        }
        return bytes.toByteArray();
    }

    /** Writes one node of the body template. */
    private static void write(JsonGenerator g, Object node, Shaping s) throws IOException, Shaping.Failure {
        s.tick();
        if (node instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue(), s);
            }
            g.writeEndObject();
        } else if (node instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                write(g, item, s);
            }
            g.writeEndArray();
        } else if (node instanceof Template t) {
            Template.Slot whole = t.whole();
            if (whole != null && whole.path() != null) {
                g.writeTree(s.value(whole)); // the JSON value itself, streamed through the bound
            } else {
                g.writeString(t.render(s, v -> v));
            }
        } else if (node instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (node instanceof java.math.BigDecimal d) {
            g.writeNumber(d);
        } else if (node == null) {
            g.writeNull();
        } else {
            throw new IllegalStateException("the reader keeps only maps, lists, templates, booleans, numbers and null, got "
                    + node.getClass());
        }
    }

    /** Why a header value cannot be sent, or null: control characters (but tab) would split or smuggle headers. */
    private static String badHeaderValue(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                return "would hold the control character U+" + String.format("%04X", (int) c);
            }
        }
        return null;
    }

    /**
     * A placeholder's value in the path or the query, and a query name: everything but RFC
     * 3986's unreserved characters is percent-encoded ({@code /}, {@code ?}, {@code &},
     * {@code =}, {@code +} and spaces too), so a value from the body stays inside its segment.
     */
    static String percent(String v) {
        byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(utf8.length);
        for (byte b : utf8) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** As configured, for logs: the parts it reshapes. */
    @Override
    public String toString() {
        return "Transform[" + (method == null ? "" : "method=" + method + " ") + (path == null ? "" : "path=" + path.text() + " ")
                + (query == null ? "" : "query=" + query.keySet() + " ") + "headers=" + headers.keySet()
                + (body == null ? "" : " body") + ", time_limit_ms=" + timeLimitMs + ", max_output_bytes=" + maxOutputBytes
                + "]";
    }

    /** The method, if it sets one. */
    public Optional<String> method() {
        return Optional.ofNullable(method);
    }
}

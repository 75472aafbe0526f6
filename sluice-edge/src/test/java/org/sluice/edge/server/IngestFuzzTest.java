package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for the whole ingest path: fuzzed bytes written to a real server over a real
 * socket (one server for the class); the client waits for the answers to a request it
 * framed itself, then half-closes and reads until the server closes. The bytes are either raw or a request assembled from fuzzed parts (method,
 * path, version, headers chosen among the ones the server reads, body, chunked framing,
 * a second pipelined request), so that the fuzzer gets past the codec into routing,
 * admission, verification, dedupe and the store.
 *
 * <p>Invariants: every response the server sends is well formed HTTP/1.1 with a status from
 * docs/http-api.md, a Content-Length that matches, and (when it has a body) a JSON object
 * with {@code status} or {@code error}; the server closes the connection after the client's
 * end of stream within 30 s (a hang is a finding); and nothing is logged at WARN or above
 * by the server or Netty (an exception reaching the end of the pipeline, a failed hook, or
 * a buffer leak, which Netty's leak detector reports at PARANOID level).
 */
@Tag("fuzz")
class IngestFuzzTest {

    private static final Set<Integer> STATUSES = Set.of(100, 200, 202, 400, 401, 404, 408, 409, 413, 417, 429, 431, 503);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLOSE_WAIT_MILLIS = 30_000;
    private static final int ANSWER_WAIT_MILLIS = 5_000;

    private static final List<String> METHODS = List.of("POST", "GET", "PUT", "HEAD", "OPTIONS", "DELETE", "post", "PRI");
    private static final List<String> PATHS = List.of("/hooks/open", "/hooks/signed", "/hooks/gh", "/hooks/nope",
            "/healthz", "/readyz", "/hooks/open?x=1", "/hooks/", "/", "*", "http://h/hooks/open", "/hooks/open/../signed");
    private static final List<String> VERSIONS = List.of("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.1 ", "");
    private static final List<String> HEADERS = List.of("Content-Length", "Transfer-Encoding", "Expect", "Connection",
            "X-Forwarded-For", "Host", "Content-Type", "X-Event-Id", "X-Signature", "X-Hub-Signature-256",
            "X-GitHub-Delivery", "Content-Length ", "content-length", "Upgrade");
    private static final List<String> VALUES = List.of("0", "1", "5", "-1", "100000000000", "chunked", "gzip, chunked",
            "100-continue", "close", "keep-alive", "10.0.0.1", "127.0.0.1, ::1", "[::1]:80, 1.2.3.4", "garbage,,",
            "application/json", "sha256=00", "evt_1", "");

    static Path dir;
    static TestEdge edge;
    static final WarningWatch WATCH = new WarningWatch();
    static final Queue<String> PROBLEMS = WATCH.problems;

    @BeforeAll
    static void start() throws IOException {
        WATCH.start();
        dir = Files.createTempDirectory("sluice-ingest-fuzz");
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_body_bytes: 4096, max_header_bytes: 2048, read_timeout_ms: 20000, trusted_proxies: ["127.0.0.1/32"]}
                rate_limits:
                  default: {rate: 1000000, burst: 1000000}
                  per_ip: {rate: 1000000, burst: 1000000}
                  tenants:
                    acme: {rate: 1000000, burst: 1000000, max_body_bytes: 100}
                sources:
                  open:   {verify: {scheme: none}, dedupe: {json: id}}
                  signed: {tenant: acme, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["s3cret"]}, dedupe: {header: X-Event-Id}}
                  gh:     {verify: {scheme: github, secrets: ["s3cret"]}, dedupe: github}
                """);
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            edge.close();
        } finally {
            WATCH.stop();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        assertThat(PROBLEMS).as("warnings logged by the server").isEmpty();
    }

    @FuzzTest(maxDuration = "30s")
    void everyAnswerIsWellFormedAndTheServerStaysQuiet(FuzzedDataProvider data) throws IOException {
        Request request = data.consumeBoolean() ? new Request(data.consumeRemainingAsBytes(), 0) : assemble(data);
        // Each request a minute later on the limiters' clock: every bucket is full again, so
        // a huge declared length early in a run does not turn every later request into a 429.
        edge.clock.advance(java.time.Duration.ofMinutes(1));
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        boolean cleanEnd;
        // Jazzer's SSRF detector flags every connection; this one goes to the server under test.
        try (SilentCloseable toTheServer = BugDetectors.allowNetworkConnections(
                (host, port) -> port == edge.address.getPort())) {
            cleanEnd = exchange(request, received);
        }
        checkResponses(received.toByteArray(), cleanEnd, mayBeHead(request.bytes()));
        assertThat(PROBLEMS).as("warnings logged by the server").isEmpty();
    }

    /**
     * Bytes to send, and how many final answers they must get before the client half-closes
     * (0: half-close at once). Only a request whose framing the test wrote itself is waited
     * for; the server closes a connection at the client's end of stream, so an answer that
     * comes from the worker stage (202, 200 duplicate, 401, 429 tenant) is only seen when
     * the client waits for it.
     */
    record Request(byte[] bytes, int answers) {
    }

    /**
     * Writes, waits for the expected answers (at most {@link #ANSWER_WAIT_MILLIS}; not an
     * assertion), half-closes, reads to the end. False when the read ended in a reset (a
     * tail may be lost).
     */
    private static boolean exchange(Request request, ByteArrayOutputStream received) throws IOException {
        try (Socket socket = new Socket(edge.address.getAddress(), edge.address.getPort())) {
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            try {
                OutputStream out = socket.getOutputStream();
                out.write(request.bytes());
                out.flush();
                if (request.answers() > 0) {
                    socket.setSoTimeout(ANSWER_WAIT_MILLIS);
                    while (finalAnswers(received.toString(StandardCharsets.ISO_8859_1)) < request.answers()) {
                        int n = in.read(buf);
                        if (n < 0) {
                            return true;
                        }
                        received.write(buf, 0, n);
                    }
                }
                socket.shutdownOutput();
            } catch (SocketTimeoutException slow) {
                halfClose(socket); // no answer yet: go on as for any request
            } catch (IOException serverClosedFirst) {
                // a refusal can close the connection before every byte was written
            }
            socket.setSoTimeout(CLOSE_WAIT_MILLIS);
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    received.write(buf, 0, n);
                }
                return true;
            } catch (SocketTimeoutException hang) {
                throw new AssertionError("the server did not close the connection within " + CLOSE_WAIT_MILLIS
                        + " ms after the client's end of stream; received so far: "
                        + received.toString(StandardCharsets.ISO_8859_1));
            } catch (IOException reset) {
                return false;
            }
        }
    }

    private static void halfClose(Socket socket) {
        try {
            socket.shutdownOutput();
        } catch (IOException alreadyGone) {
            // the server reset the connection: the read below sees it
        }
    }

    /** How many complete answers other than 100 Continue {@code text} holds (a HEAD's head alone counts). */
    private static int finalAnswers(String text) {
        int count = 0;
        int at = 0;
        while (true) {
            int headEnd = text.indexOf("\r\n\r\n", at);
            if (headEnd < 0) {
                return count;
            }
            String head = text.substring(at, headEnd).toLowerCase(Locale.ROOT);
            at = headEnd + 4;
            if (head.startsWith("http/1.1 100 ")) {
                continue;
            }
            int cl = head.indexOf("\r\ncontent-length:");
            long length = 0;
            if (cl >= 0) {
                int end = head.indexOf("\r\n", cl + 2);
                length = Long.parseLong(head.substring(cl + 17, end < 0 ? head.length() : end).trim());
            }
            if (at + length > text.length()) {
                return count + (text.startsWith("HTTP/1.1 ", at) || at == text.length() ? 1 : 0);
            }
            at += (int) length;
            count++;
        }
    }

    /** True when some request may be a HEAD, whose response carries a Content-Length but no content (RFC 9110). */
    private static boolean mayBeHead(byte[] request) {
        return new String(request, StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT).contains("HEAD");
    }

    /** Every complete response is well formed; after a clean end of stream there is no partial one. */
    static void checkResponses(byte[] bytes, boolean cleanEnd, boolean mayBeHead) throws IOException {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int at = 0;
        while (at < text.length()) {
            int headEnd = text.indexOf("\r\n\r\n", at);
            if (headEnd < 0) {
                assertThat(cleanEnd).as("a partial response head before a clean end: %s", text.substring(at)).isFalse();
                return;
            }
            String[] lines = text.substring(at, headEnd).split("\r\n", -1);
            assertThat(lines[0]).as("status line").matches("HTTP/1\\.1 [1-5][0-9]{2} [A-Za-z -]+");
            int status = Integer.parseInt(lines[0].substring(9, 12));
            assertThat(STATUSES).as("status of %s", lines[0]).contains(status);
            long length = -1;
            String contentType = null;
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                assertThat(colon).as("header line %s", lines[i]).isPositive();
                String name = lines[i].substring(0, colon).toLowerCase(Locale.ROOT);
                String value = lines[i].substring(colon + 1).trim();
                if (name.equals("content-length")) {
                    length = Long.parseLong(value);
                } else if (name.equals("content-type")) {
                    contentType = value;
                }
            }
            at = headEnd + 4;
            if (status == 100) {
                continue;
            }
            assertThat(length).as("Content-Length of %s", lines[0]).isNotNegative();
            if (mayBeHead && length > 0 && (at == text.length() || text.startsWith("HTTP/1.1 ", at))) {
                continue; // the answer to a HEAD: no content follows its head
            }
            if (at + length > text.length()) {
                assertThat(cleanEnd).as("a partial response body before a clean end").isFalse();
                return;
            }
            String body = text.substring(at, (int) (at + length));
            at += (int) length;
            if (length > 0) {
                assertThat(contentType).isEqualTo("application/json");
                JsonNode json = JSON.readTree(body);
                assertThat(json.isObject() && (json.has("status") || json.has("error"))).as("body %s", body).isTrue();
            }
        }
    }

    /** A request from fuzzed parts, and sometimes a second one pipelined behind it. */
    private static Request assemble(FuzzedDataProvider data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean framedByUs = true;
        int requests = data.consumeInt(1, 2);
        for (int r = 0; r < requests; r++) {
            StringBuilder head = new StringBuilder();
            String method = data.consumeBoolean() ? data.pickValue(METHODS) : data.consumeString(8);
            String path = data.consumeInt(0, 3) != 0 ? data.pickValue(PATHS) : data.consumeString(40);
            framedByUs &= (method + path).chars().allMatch(c -> c > ' ');
            head.append(method).append(' ').append(path).append(' ').append(data.pickValue(VERSIONS)).append("\r\n");
            byte[] body = data.consumeBytes(data.consumeInt(0, 300));
            boolean chunked = data.consumeInt(0, 4) == 0;
            if (data.consumeInt(0, 3) != 0) {
                head.append("Content-Length: ").append(chunked ? 0 : body.length).append("\r\n");
            } else {
                framedByUs &= chunked || body.length == 0;
            }
            if (chunked) {
                head.append("Transfer-Encoding: chunked\r\n");
            }
            int headers = data.consumeInt(0, 6);
            for (int i = 0; i < headers; i++) {
                String name = data.consumeInt(0, 4) != 0 ? data.pickValue(HEADERS) : data.consumeString(16);
                String value = data.consumeBoolean() ? data.pickValue(VALUES) : data.consumeString(64);
                String lower = name.toLowerCase(Locale.ROOT);
                framedByUs &= !lower.contains("content-length") && !lower.contains("transfer-encoding")
                        && !lower.contains("expect") && !lower.contains("connection") && !lower.contains("upgrade");
                head.append(name).append(": ").append(value).append("\r\n");
            }
            head.append("\r\n");
            out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
            if (chunked) {
                int split = body.length / 2;
                out.writeBytes(chunk(body, 0, split));
                out.writeBytes(chunk(body, split, body.length));
                out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            } else {
                out.writeBytes(body);
            }
        }
        return new Request(out.toByteArray(), framedByUs ? requests : 0);
    }

    private static byte[] chunk(byte[] body, int from, int to) {
        if (to == from) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((Integer.toHexString(to - from) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body, from, to - from);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }
}

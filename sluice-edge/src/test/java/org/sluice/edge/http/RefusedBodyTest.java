package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.IngestContractTest.json;
import static org.sluice.edge.http.PreReadAdmissionTest.loopback;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code http.refused_body: close} (always close, even for a body that already arrived): a
 * request refused before its body is read gets its whole {@code 429} with {@code Connection: close}, then a
 * clean end of stream (a lingering close: half-close, drain, close), never a reset; no byte
 * after the refused request's headers is parsed. A refused request without a body keeps
 * its keep-alive connection. Every client address here has a burst of one, spent first by
 * an admitted hook; the clock is frozen, so every later request from it is refused.
 */
class RefusedBodyTest {

    private static final String KIB = "x".repeat(1024);

    @TempDir
    Path dir;

    private TestEdge edge;

    @BeforeEach
    void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", refused_body: close}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """);
    }

    @AfterEach
    void stop() {
        edge.close();
    }

    /** An address whose burst is spent: everything it sends from now on is refused at step 2. */
    private InetAddress spentAddress(int last) throws Exception {
        InetAddress address = loopback(last);
        assertThat(PreReadAdmissionTest.postFrom(edge, address, "/hooks/a", "{}").status()).isEqualTo(202);
        return address;
    }

    private static void assertRefusedAndClosing(Http.Response r) throws Exception {
        assertThat(r.status()).isEqualTo(429);
        assertThat(json(r).toString()).isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"ip\",\"retry_after_ms\":1000}");
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.header("retry-after")).isEqualTo("1");
        assertThat(r.header("connection")).isEqualTo("close");
    }

    @Test
    void aBodySentWholeBeforeReadingGetsTheWhole429ThenEndOfStreamAndWhatFollowsIsNeverParsed() throws Exception {
        InetAddress client = spentAddress(20);
        try (Http http = Http.connect(edge.address, client)) {
            // the refused hook, its 1 KiB body, and two requests pipelined behind it, in one write
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n" + KIB
                    + "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
            assertRefusedAndClosing(http.read());
            assertThat(http.endOfStream()).as("a FIN right after the answer, not a reset, not a second answer").isTrue();
        }
        String metrics = MetricsTest.scrape(edge);
        assertThat(metrics).as("the pipelined POST was never parsed, so never refused")
                .contains("sluice_admission_refusals_total{scope=\"ip\"} 1.0");
        assertThat(metrics).contains("sluice_ingest_requests_total{outcome=\"accepted\"} 1.0");
    }

    @Test
    void aBodySentAfterReadingThe429IsDrainedAndTheConnectionEndsCleanly() throws Exception {
        InetAddress client = spentAddress(21);
        try (Http http = Http.connect(edge.address, client)) {
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n"); // no body yet
            assertRefusedAndClosing(http.read());
            http.write(KIB); // arrives at a half-closed connection: drained unread
            assertThat(http.endOfStream()).isTrue();
        }
    }

    @Test
    void aBigBodyStillInFlightWhileTheAnswerIsReadDoesNotResetTheAnswer() throws Exception {
        InetAddress client = spentAddress(22);
        byte[] body = "y".repeat(256 * 1024).getBytes(StandardCharsets.US_ASCII);
        try (Http http = Http.connect(edge.address, client)) {
            // a writer pushes the whole body while this thread reads the answer
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length + "\r\n\r\n");
                http.write(body);
            });
            assertRefusedAndClosing(http.read());
            writer.join(); // every byte accepted: the server kept reading (and dropping) after its answer
            assertThat(http.endOfStream()).isTrue();
        }
        assertThat(MetricsTest.scrape(edge)).contains("sluice_admission_refusals_total{scope=\"ip\"} 1.0");
    }

    @Test
    void aRefusedRequestWithoutABodyKeepsItsKeepAliveConnection() throws Exception {
        InetAddress client = spentAddress(23);
        try (Http http = Http.connect(edge.address, client)) {
            Http.Response empty = http.request("POST", "/hooks/a", Map.of(), new byte[0]); // Content-Length: 0
            assertThat(empty.status()).isEqualTo(429);
            assertThat(empty.header("connection")).isNull();
            Http.Response undeclared = http.request("POST", "/hooks/a", Map.of(), null); // no Content-Length at all
            assertThat(undeclared.status()).isEqualTo(429);
            assertThat(undeclared.header("connection")).isNull();
            // the same connection still serves: a probe is not limited
            assertThat(http.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
        }
        assertThat(MetricsTest.scrape(edge)).contains("sluice_admission_refusals_total{scope=\"ip\"} 2.0");
    }

    @Test
    void aRefusedChunkedRequestIsAnsweredAndClosed() throws Exception {
        InetAddress client = spentAddress(24);
        try (Http http = Http.connect(edge.address, client)) {
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "400\r\n" + KIB + "\r\n0\r\n\r\n");
            assertRefusedAndClosing(http.read());
            assertThat(http.endOfStream()).isTrue();
        }
    }

    @Test
    void aClientThatAsksForCloseIsAnsweredAndClosedToo() throws Exception {
        InetAddress client = spentAddress(25);
        try (Http http = Http.connect(edge.address, client)) {
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 1024\r\n\r\n" + KIB);
            assertRefusedAndClosing(http.read());
            assertThat(http.endOfStream()).isTrue();
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;
import static org.sluice.edge.server.PreReadAdmissionTest.loopback;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What step 2 does with the body of a request it refuses before reading it
 * ({@code http.refused_body}), on real sockets. Every client address has a burst of one,
 * spent first by an admitted hook; the clock is frozen, so every later request from it
 * is refused. Each request here is written in one piece, so it arrives in one read on
 * loopback.
 */
class RefusedBodyTest {

    private static final String KIB = "x".repeat(1024);

    @TempDir
    Path dir;

    private TestEdge edge;

    /** Starts the edge with {@code http.refused_body: value}, or the default when null. */
    private void start(String value) {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"%s}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(value == null ? "" : ", refused_body: " + value));
    }

    @AfterEach
    void stop() {
        if (edge != null) {
            edge.close();
        }
    }

    /** An address whose burst is spent: everything it sends from now on is refused at step 2. */
    private InetAddress spentAddress(int last) throws Exception {
        InetAddress address = loopback(last);
        assertThat(PreReadAdmissionTest.postFrom(edge, address, "/hooks/a", "{}").status()).isEqualTo(202);
        return address;
    }

    private static void assertRefused(Http.Response r) throws Exception {
        assertThat(r.status()).isEqualTo(429);
        assertThat(json(r).toString()).isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"ip\",\"retry_after_ms\":1000}");
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.header("retry-after")).isEqualTo("1");
    }

    private static void assertRefusedAndClosing(Http.Response r) throws Exception {
        assertRefused(r);
        assertThat(r.header("connection")).isEqualTo("close");
    }

    private static String post(int length) {
        return "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\n";
    }

    /**
     * {@code close}: a request refused before its body is read gets its whole {@code 429}
     * with {@code Connection: close}, then a clean end of stream (a lingering close:
     * half-close, drain, close), never a reset, even when the body already arrived; no byte
     * after the refused request's headers is parsed. A refused request without a body keeps
     * its keep-alive connection.
     */
    @Nested
    class AlwaysClose {

        @BeforeEach
        void start() {
            RefusedBodyTest.this.start("close");
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

    /**
     * {@code close_if_incomplete}, the default: the connection is kept only when the whole
     * (small, declared) body came in the same read as the headers, so keeping it reads
     * nothing more; a body with any byte still to come closes the connection (the lingering
     * close), and so do bodies over 64 KiB, chunked bodies and {@code Expect: 100-continue}.
     */
    @Nested
    class CloseIfIncomplete {

        @BeforeEach
        void start() {
            RefusedBodyTest.this.start(null);
        }

        @Test
        void aBodyThatArrivedWithItsHeadersIsDroppedAndTheConnectionServesTheNextRequests() throws Exception {
            InetAddress client = spentAddress(40);
            try (Http http = Http.connect(edge.address, client)) {
                for (int i = 0; i < 3; i++) {
                    http.write(post(1024) + KIB);
                    Http.Response r = http.read();
                    assertRefused(r);
                    assertThat(r.header("connection")).as("nothing was left to read: kept").isNull();
                }
                // pipelined behind a refused whole body, in the same write: parsed and answered
                http.write(post(1024) + KIB + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
                assertRefused(http.read());
                assertThat(http.read().status()).isEqualTo(200);
            }
            assertThat(MetricsTest.scrape(edge)).contains("sluice_admission_refusals_total{scope=\"ip\"} 4.0");
        }

        @Test
        void aBodyNotYetSentClosesTheConnectionAndIsNeverParsed() throws Exception {
            InetAddress client = spentAddress(41);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(post(1024)); // the headers alone
                assertRefusedAndClosing(http.read());
                // the body and a request behind it reach a closing connection: drained, not parsed
                http.write(KIB + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(http.endOfStream()).as("a clean end, no second answer").isTrue();
            }
        }

        @Test
        void aBodyHalfSentWithItsHeadersClosesTheConnection() throws Exception {
            InetAddress client = spentAddress(42);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(post(1024) + KIB.substring(512));
                assertRefusedAndClosing(http.read());
                http.write(KIB.substring(512));
                assertThat(http.endOfStream()).isTrue();
            }
        }

        @Test
        void aBodyOver64KiBClosesEvenWhenSentWhole() throws Exception {
            InetAddress client = spentAddress(43);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(post(65_537) + "z".repeat(65_537));
                assertRefusedAndClosing(http.read());
                assertThat(http.endOfStream()).isTrue();
            }
        }

        @Test
        void aChunkedBodyClosesEvenWhenSentWhole() throws Exception {
            InetAddress client = spentAddress(44);
            try (Http http = Http.connect(edge.address, client)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
                assertRefusedAndClosing(http.read());
                assertThat(http.endOfStream()).isTrue();
            }
        }

        @Test
        void aClientAskingForCloseIsClosedAfterAWholeBody() throws Exception {
            InetAddress client = spentAddress(45);
            try (Http http = Http.connect(edge.address, client)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 1024\r\n\r\n" + KIB);
                assertRefusedAndClosing(http.read());
                assertThat(http.endOfStream()).isTrue();
            }
        }

        /**
         * A refused request pipelined behind a hook waits in the {@code InOrderGate} until the
         * hook's 202 is written; released with its whole body, it keeps the connection.
         */
        @Test
        void aRefusedRequestReleasedFromBehindAHookWithItsWholeBodyKeepsTheConnection() throws Exception {
            InetAddress client = loopback(46);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(post(2) + "{}" + post(1024) + KIB);
                assertThat(http.read().status()).as("the burst of one").isEqualTo(202);
                Http.Response r = http.read();
                assertRefused(r);
                assertThat(r.header("connection")).isNull();
                assertThat(http.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
            }
        }

        /** The same with half the body: the release counts as the read that brought it, and the connection closes. */
        @Test
        void aRefusedRequestReleasedFromBehindAHookWithHalfItsBodyCloses() throws Exception {
            InetAddress client = loopback(47);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(post(2) + "{}" + post(1024) + KIB.substring(512));
                assertThat(http.read().status()).isEqualTo(202);
                assertRefusedAndClosing(http.read());
                assertThat(http.endOfStream()).isTrue();
            }
            assertThat(MetricsTest.scrape(edge)).contains("sluice_ingest_requests_total{outcome=\"accepted\"} 1.0");
        }
    }
}

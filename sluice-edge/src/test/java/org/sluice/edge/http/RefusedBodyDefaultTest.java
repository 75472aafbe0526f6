package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.IngestContractTest.json;
import static org.sluice.edge.http.PreReadAdmissionTest.loopback;

import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code http.refused_body: close_if_incomplete}, the default: a request refused before its
 * body is read keeps its connection only when its whole (small, declared) body came in the
 * same read as its headers, so keeping the connection reads nothing more; a body with any
 * byte still to come closes the connection (the lingering close), and so do bodies over
 * 64 KiB, chunked bodies and {@code Expect: 100-continue}. Each request here is written in
 * one piece, so it arrives in one read on loopback. Every client address has a burst of
 * one, spent first by an admitted hook; the clock is frozen, so every later request from
 * it is refused.
 */
class RefusedBodyDefaultTest {

    private static final String KIB = "x".repeat(1024);

    @TempDir
    Path dir;

    private TestEdge edge;

    @BeforeEach
    void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
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

    private InetAddress spentAddress(int last) throws Exception {
        InetAddress address = loopback(last);
        assertThat(PreReadAdmissionTest.postFrom(edge, address, "/hooks/a", "{}").status()).isEqualTo(202);
        return address;
    }

    private static void assertRefused(Http.Response r) throws Exception {
        assertThat(r.status()).isEqualTo(429);
        assertThat(json(r).toString()).isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"ip\",\"retry_after_ms\":1000}");
        assertThat(r.header("retry-after")).isEqualTo("1");
    }

    private static String post(int length) {
        return "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\n";
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
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
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
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
            http.write(KIB.substring(512));
            assertThat(http.endOfStream()).isTrue();
        }
    }

    @Test
    void aBodyOver64KiBClosesEvenWhenSentWhole() throws Exception {
        InetAddress client = spentAddress(43);
        try (Http http = Http.connect(edge.address, client)) {
            http.write(post(65_537) + "z".repeat(65_537));
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(http.endOfStream()).isTrue();
        }
    }

    @Test
    void aChunkedBodyClosesEvenWhenSentWhole() throws Exception {
        InetAddress client = spentAddress(44);
        try (Http http = Http.connect(edge.address, client)) {
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(http.endOfStream()).isTrue();
        }
    }

    @Test
    void aClientAskingForCloseIsClosedAfterAWholeBody() throws Exception {
        InetAddress client = spentAddress(45);
        try (Http http = Http.connect(edge.address, client)) {
            http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 1024\r\n\r\n" + KIB);
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(http.endOfStream()).isTrue();
        }
    }

    /**
     * A refused request pipelined behind a hook waits in the {@link InOrderGate} until the
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
            assertThat(http.request("GET", "/healthz", java.util.Map.of(), null).status()).isEqualTo(200);
        }
    }

    /** The same with half the body: the release counts as the read that brought it, and the connection closes. */
    @Test
    void aRefusedRequestReleasedFromBehindAHookWithHalfItsBodyCloses() throws Exception {
        InetAddress client = loopback(47);
        try (Http http = Http.connect(edge.address, client)) {
            http.write(post(2) + "{}" + post(1024) + KIB.substring(512));
            assertThat(http.read().status()).isEqualTo(202);
            Http.Response r = http.read();
            assertRefused(r);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(http.endOfStream()).isTrue();
        }
        assertThat(MetricsTest.scrape(edge)).contains("sluice_ingest_requests_total{outcome=\"accepted\"} 1.0");
    }
}

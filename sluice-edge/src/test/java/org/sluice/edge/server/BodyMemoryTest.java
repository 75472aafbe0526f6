package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;
import static org.sluice.edge.server.PreReadAdmissionTest.loopback;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.http.BodyAggregator;

/**
 * What a declared {@code Content-Length} may cost the node before its bytes arrive, on real
 * sockets: the 413 comes before any bucket is charged, the buffer grows only as bytes
 * arrive, bytes that never arrive are never charged to the source, the node's body memory
 * is bounded by {@code http.max_inflight_body_bytes} (read through the server's own gauge
 * {@code sluice_http_inflight_body_bytes}), and {@code http.max_connections_per_ip} caps the
 * connections of one peer address. The limiter clock is frozen: nothing refills.
 */
class BodyMemoryTest {

    private static final Pattern INFLIGHT = Pattern.compile("(?m)^sluice_http_inflight_body_bytes (\\S+)$");

    @TempDir
    Path dir;

    static long inflight(TestEdge edge) {
        Matcher m = INFLIGHT.matcher(MetricsTest.scrape(edge));
        assertThat(m.find()).as("the gauge sluice_http_inflight_body_bytes is exported").isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    /** Waits (bounded, see {@link TestEdge#await}) until the gauge reads {@code bytes}. */
    static void awaitInflight(TestEdge edge, long bytes) {
        TestEdge.await(() -> inflight(edge) == bytes);
    }

    private static String declaring(long length) {
        return "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\n";
    }

    @Test
    void aDeclaredLengthOverTheLimitIs413BeforeAnyBucketIsCharged() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_body_bytes: 1000}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                  node: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}, bytes_per_second: 1000}
                """)) {
            InetAddress client = loopback(61);
            try (Http http = Http.connect(edge.address, client)) {
                http.write(declaring(1001));
                Http.Response r = http.read();
                assertThat(r.status()).isEqualTo(413);
                assertThat(json(r).toString()).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":1000}");
            }
            // the address's, the node's and the source's single burst are all still there
            assertThat(PreReadAdmissionTest.postFrom(edge, client, "/hooks/a", "x".repeat(1000)).status()).isEqualTo(202);
            assertThat(MetricsTest.scrape(edge)).doesNotContain("sluice_admission_refusals_total{scope=\"ip\"} 1.0");
        }
    }

    /**
     * A body declared whole (the source's whole byte burst) that is cut by the read timeout,
     * and another whose client goes away halfway, cost the source nothing: a third body of
     * the same size is admitted with the clock frozen.
     */
    @Test
    void bytesThatNeverArriveAreNeverChargedToTheSource() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", read_timeout_ms: 500}
                sources:
                  a: {verify: {scheme: none}, bytes_per_second: 1000}
                """)) {
            try (Http http = Http.connect(edge.address)) {
                http.write(declaring(1000) + "x".repeat(10));
                assertThat(http.read().status()).isEqualTo(408);
            }
            try (Http http = Http.connect(edge.address)) {
                http.write(declaring(1000) + "x".repeat(500));
            } // the client goes away
            awaitInflight(edge, 0);
            assertThat(edge.post("/hooks/a", Map.of(), "y".repeat(1000)).status()).isEqualTo(202);
            assertThat(edge.post("/hooks/a", Map.of(), "y").status()).as("and the bucket is spent now").isEqualTo(429);
        }
    }

    /**
     * Fifty connections each declare a body of 7999999 bytes and send none. Each holds its
     * first buffer only (16 KiB), far under the bound, instead of eight megabytes each; when
     * they close, every byte is given back.
     */
    @Test
    void manyConnectionsDeclaringLargeBodiesAndSendingNoneHoldOnlyTheirFirstBuffers() throws Exception {
        int connections = 50;
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            List<Http> open = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    open.add(Http.connect(edge.address).write(declaring(7_999_999)));
                }
                long expected = (long) connections * BodyAggregator.INITIAL_CAPACITY;
                awaitInflight(edge, expected);
                assertThat(expected).isLessThan(256L << 20);
            } finally {
                open.forEach(Http::close);
            }
            awaitInflight(edge, 0);
            assertThat(edge.post("/hooks/a", Map.of(), "{}").status()).isEqualTo(202);
            assertThat(inflight(edge)).as("an answered hook gives its body back").isZero();
        }
    }

    /**
     * Under a bound of 64 KiB, four silent connections hold 16 KiB each: a fifth body is
     * answered {@code 503 overload} before it is read, while a request without a body still
     * passes; a body growing past the bound is {@code 503 overload} mid-stream. The gauge
     * never passes the bound.
     */
    @Test
    void pastTheInflightBoundABodyIs503OverloadAndTheGaugeStaysUnderIt() throws Exception {
        long bound = 64 * 1024;
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_body_bytes: %d, max_inflight_body_bytes: %d}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(bound, bound))) {
            List<Http> open = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    open.add(Http.connect(edge.address).write(declaring(bound)));
                }
                awaitInflight(edge, 3L * BodyAggregator.INITIAL_CAPACITY);

                // a fourth sends 20 KiB of its 64: its buffer doubles to 32 KiB, the node is at 80 KiB > 64 KiB
                try (Http growing = Http.connect(edge.address)) {
                    growing.write(declaring(bound) + "g".repeat(20 * 1024));
                    Http.Response r = growing.read();
                    assertThat(r.status()).isEqualTo(503);
                    assertThat(json(r).toString()).isEqualTo("{\"error\":\"overload\"}");
                    assertThat(r.header("retry-after")).isEqualTo("1");
                    assertThat(r.header("connection")).isEqualTo("close");
                }
                awaitInflight(edge, 3L * BodyAggregator.INITIAL_CAPACITY);

                open.add(Http.connect(edge.address).write(declaring(bound)));
                awaitInflight(edge, 4L * BodyAggregator.INITIAL_CAPACITY);
                assertThat(inflight(edge)).isLessThanOrEqualTo(bound);

                try (Http refused = Http.connect(edge.address)) {
                    refused.write(declaring(100));
                    Http.Response r = refused.read();
                    assertThat(r.status()).isEqualTo(503);
                    assertThat(json(r).toString()).isEqualTo("{\"error\":\"overload\"}");
                    assertThat(r.header("connection")).isEqualTo("close");
                    assertThat(refused.endOfStream()).isTrue();
                }
                assertThat(Http.get(edge.address, "/healthz").status()).isEqualTo(200);
                assertThat(edge.post("/hooks/a", Map.of(), "").status()).as("no body, no memory").isEqualTo(202);
                assertThat(inflight(edge)).isLessThanOrEqualTo(bound);
            } finally {
                open.forEach(Http::close);
            }
            awaitInflight(edge, 0);
            assertThat(edge.post("/hooks/a", Map.of(), "{}").status()).isEqualTo(202);
            assertThat(MetricsTest.scrape(edge)).contains("sluice_ingest_requests_total{outcome=\"overload\"} 2.0");
        }
    }

    /**
     * With a cap of two connections per address, a third from the same address is answered
     * {@code 503 overload} with {@code Connection: close} before anything is read, then end
     * of stream; another address is not affected; once one of the two closes, the address
     * may connect again. Each refusal is counted.
     */
    @Test
    void aConnectionOverMaxConnectionsPerIpIsAnswered503AndClosed() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_connections_per_ip: 2}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            InetAddress crowded = loopback(71);
            Http first = Http.connect(edge.address, crowded);
            Http second = Http.connect(edge.address, crowded);
            try {
                assertThat(first.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
                assertThat(second.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
                try (Http third = Http.connect(edge.address, crowded)) {
                    Http.Response r = third.read(); // answered without sending anything
                    assertThat(r.status()).isEqualTo(503);
                    assertThat(json(r).toString()).isEqualTo("{\"error\":\"overload\"}");
                    assertThat(r.header("retry-after")).isEqualTo("1");
                    assertThat(r.header("connection")).isEqualTo("close");
                    assertThat(third.endOfStream()).isTrue();
                }
                try (Http other = Http.connect(edge.address, loopback(72))) {
                    assertThat(other.request("POST", "/hooks/a", Map.of(), "{}".getBytes()).status()).isEqualTo(202);
                }
                assertThat(first.request("POST", "/hooks/a", Map.of(), "{}".getBytes()).status())
                        .as("the two counted connections still serve").isEqualTo(202);
            } finally {
                first.close();
            }
            TestEdge.await(() -> { // the server sees the close a moment after the client makes it
                try (Http again = Http.connect(edge.address, crowded)) {
                    if (again.request("GET", "/healthz", Map.of(), null).status() == 200) {
                        return true;
                    }
                } catch (RuntimeException refusedMeanwhile) {
                    // refused before the close was seen: try again
                }
                return false;
            });
            second.close();
            assertThat(MetricsTest.scrape(edge)).containsPattern("(?m)^sluice_http_connections_refused_total [1-9]");
        }
    }
}

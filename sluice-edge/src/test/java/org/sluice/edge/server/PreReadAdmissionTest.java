package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step 2: per-address, node and source-byte limits charged before a byte of the body is
 * read. Clients connect from distinct loopback addresses (127.0.0.x) so the server sees
 * distinct peers. The clock is frozen: every count is exact.
 */
class PreReadAdmissionTest {

    @TempDir
    Path dir;

    static InetAddress loopback(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
    }

    static Http.Response postFrom(TestEdge edge, InetAddress from, String path, String body) {
        try (Http http = Http.connect(edge.address, from)) {
            return http.request("POST", path, Map.of(), body.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theAddressIsChargedBeforeTheNodeAndARefusedAddressNeverTouchesTheNode() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  per_ip: {rate: 1, burst: 2}
                  node:   {rate: 1, burst: 5}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            InetAddress flooder = loopback(2);
            assertThat(postFrom(edge, flooder, "/hooks/a", "{}").status()).isEqualTo(202);
            assertThat(postFrom(edge, flooder, "/hooks/a", "{}").status()).isEqualTo(202);
            for (int i = 0; i < 20; i++) {
                Http.Response refused = postFrom(edge, flooder, "/hooks/a", "{}");
                assertThat(refused.status()).isEqualTo(429);
                assertThat(json(refused).toString())
                        .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"ip\",\"retry_after_ms\":1000}");
                assertThat(refused.header("Retry-After")).isEqualTo("1");
            }
            // the node bucket (burst 5) has seen exactly the 2 admitted hooks: 3 more fit
            assertThat(postFrom(edge, loopback(3), "/hooks/a", "{}").status()).isEqualTo(202);
            assertThat(postFrom(edge, loopback(3), "/hooks/a", "{}").status()).isEqualTo(202);
            assertThat(postFrom(edge, loopback(4), "/hooks/a", "{}").status()).isEqualTo(202);
            Http.Response node = postFrom(edge, loopback(4), "/hooks/a", "{}");
            assertThat(node.status()).isEqualTo(429);
            assertThat(json(node).toString())
                    .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"node\",\"retry_after_ms\":1000}");
            // the five hooks answered 202 are stored, and none of the 21 refused before the body
            assertThat(StoredHooks.all(edge.backends().store())).hasSize(5);
        }
    }

    @Test
    void aLargeDeclarationFromAnOverLimitAddressIsRefusedWithoutSendingTheBody() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            InetAddress client = loopback(5);
            assertThat(postFrom(edge, client, "/hooks/a", "{}").status()).isEqualTo(202);
            try (Http http = Http.connect(edge.address, client)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 7999999\r\n\r\n");
                Http.Response r = http.read(); // not one body byte was sent
                assertThat(r.status()).isEqualTo(429);
                assertThat(json(r).get("scope").asText()).isEqualTo("ip");
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(http.closedByServer()).isTrue();
            }
            // a declaration over max_body_bytes is 413 before any bucket is looked at, from either address, still unread
            for (int last : new int[] {5, 6}) {
                try (Http http = Http.connect(edge.address, loopback(last))) {
                    http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 52428800\r\n\r\n");
                    Http.Response r = http.read();
                    assertThat(r.status()).isEqualTo(413);
                    assertThat(json(r).toString()).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":8000000}");
                    assertThat(http.closedByServer()).isTrue();
                }
            }
            assertThat(postFrom(edge, loopback(6), "/hooks/a", "{}").status()).as("the 413 spent nothing").isEqualTo(202);
        }
    }

    @Test
    void underRefusedBodyDiscardABodyOver64KiBClosesTheConnectionAndOneWithinIsDroppedInPlace() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", refused_body: discard}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            InetAddress client = loopback(8);
            assertThat(postFrom(edge, client, "/hooks/a", "{}").status()).isEqualTo(202);
            try (Http http = Http.connect(edge.address, client)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 65537\r\n\r\n");
                Http.Response r = http.read();
                assertThat(r.status()).isEqualTo(429);
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(http.endOfStream()).isTrue();
            }
            try (Http http = Http.connect(edge.address, client)) {
                for (int i = 0; i < 3; i++) { // keep-alive through refusals: each body dropped as it arrives
                    Http.Response r = http.request("POST", "/hooks/a", Map.of(), "x".repeat(65536).getBytes(StandardCharsets.UTF_8));
                    assertThat(r.status()).isEqualTo(429);
                    assertThat(r.header("connection")).isNull();
                }
                assertThat(http.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
                // chunked and Expect: 100-continue bodies still close under discard
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
                Http.Response chunked = http.read();
                assertThat(chunked.status()).isEqualTo(429);
                assertThat(chunked.header("connection")).isEqualTo("close");
                assertThat(http.endOfStream()).isTrue();
            }
            assertThat(MetricsTest.scrape(edge)).contains("sluice_admission_refusals_total{scope=\"ip\"} 5.0");
        }
    }

    @Test
    void expectContinueFromAnOverLimitAddressIsAnsweredWithoutA100() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            InetAddress client = loopback(7);
            assertThat(postFrom(edge, client, "/hooks/a", "{}").status()).isEqualTo(202);
            try (Http http = Http.connect(edge.address, client)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n");
                Http.Response r = http.read();
                assertThat(r.status()).as("the first answer is the refusal, not 100 Continue").isEqualTo(429);
                assertThat(http.closedByServer()).isTrue();
            }
        }
    }

    @Test
    void sourceBytesAreCheckedWithTheDeclaredLengthAndChargedOnceRead() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  sources: {default: {bytes_per_second: 1000}}
                sources:
                  a:    {verify: {scheme: none}}
                  b:    {verify: {scheme: none}}
                  slow: {verify: {scheme: none}, bytes_per_second: 100}
                """)) {
            String body = "x".repeat(800);
            assertThat(edge.post("/hooks/a", Map.of(), body).status()).isEqualTo(202);
            try (Http http = Http.connect(edge.address)) {
                http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 800\r\n\r\n"); // body not sent yet
                Http.Response r = http.read();
                assertThat(r.status()).isEqualTo(429);
                // one second of burst (1000 bytes) holds 800; 800 more needs 600 bytes of refill at 1000 B/s
                assertThat(json(r).toString())
                        .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"source\",\"retry_after_ms\":600}");
                assertThat(r.header("connection")).as("the body had not arrived with the headers: closes").isEqualTo("close");
                http.write(body); // drained unread by the lingering close
                assertThat(http.endOfStream()).isTrue();
            }
            // each source has its own bucket, and a per-source figure overrides the default
            assertThat(edge.post("/hooks/b", Map.of(), body).status()).isEqualTo(202);
            assertThat(edge.post("/hooks/slow", Map.of(), "y".repeat(100)).status()).isEqualTo(202);
            assertThat(edge.post("/hooks/slow", Map.of(), "y").status()).isEqualTo(429);

            // a chunked body is charged once read; the connection stays usable (the body was read)
            try (Http http = Http.connect(edge.address)) {
                http.write("POST /hooks/b HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "190\r\n" + "z".repeat(400) + "\r\n0\r\n\r\n");
                Http.Response r = http.read();
                assertThat(r.status()).isEqualTo(429);
                assertThat(json(r).get("scope").asText()).isEqualTo("source");
                assertThat(http.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void shadowModeCountsEveryRefusalAndRefusesNothing() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  shadow: true
                  per_ip: {rate: 1, burst: 1}
                  tenants: {t: {rate: 1, burst: 1}}
                sources:
                  a: {tenant: t, verify: {scheme: none}}
                """)) {
            for (int i = 0; i < 4; i++) {
                assertThat(edge.post("/hooks/a", Map.of(), "{}").status()).isEqualTo(202);
            }
            String metrics = MetricsTest.scrape(edge);
            assertThat(metrics).contains("sluice_admission_refusals_total{scope=\"ip\"} 3.0");
            assertThat(metrics).contains("sluice_admission_refusals_total{scope=\"tenant\"} 3.0");
            assertThat(metrics).contains("sluice_ingest_requests_total{outcome=\"accepted\"} 4.0");
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.verify.Signatures;

/** Each status of the ingest contract, with its body and headers, against one real server. */
class IngestContractTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String UUID_V7 = "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

    @TempDir
    static Path dir;
    static TestEdge edge;

    @BeforeAll
    static void start() {
        edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_body_bytes: 1000, max_header_bytes: 2048, read_timeout_ms: 1500}
                rate_limits:
                  tenants:
                    acme:  {rate: 1, burst: 3}
                    bytes: {rate: 100, burst: 100, bytes_per_second: 100, burst_bytes: 250}
                    small: {rate: 100, burst: 100, max_body_bytes: 100}
                sources:
                  open:   {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                  bulk:   {tenant: bytes, verify: {scheme: none}}
                  tiny:   {tenant: small, verify: {scheme: none}}
                  free:   {verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                  signed: {tenant: small, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["s3cret"]}}
                """);
    }

    @AfterAll
    static void stop() {
        edge.close();
    }

    static JsonNode json(Http.Response r) throws Exception {
        assertThat(r.header("content-type")).isEqualTo("application/json");
        return JSON.readTree(r.body());
    }

    // ------------------------------------------------------------ 1. route

    @Test
    void unknownSourceIs404() throws Exception {
        Http.Response r = edge.post("/hooks/nope", Map.of(), "{}");
        assertThat(r.status()).isEqualTo(404);
        assertThat(json(r).toString()).isEqualTo("{\"error\":\"unknown_source\"}");
    }

    @Test
    void otherMethodsAndPathsAre404NotFound() throws Exception {
        for (Http.Response r : new Http.Response[] {
            Http.get(edge.address, "/hooks/open"),
            edge.post("/elsewhere", Map.of(), "{}"),
            edge.post("/hooks/open/extra", Map.of(), "{}"),
            edge.post("/hooks/", Map.of(), "{}"),
            Http.get(edge.address, "/")}) {
            assertThat(r.status()).as(r.toString()).isEqualTo(404);
            assertThat(json(r).toString()).isEqualTo("{\"error\":\"not_found\"}");
        }
    }

    @Test
    void probesAnswer200() throws Exception {
        Http.Response health = Http.get(edge.address, "/healthz");
        assertThat(health.status()).isEqualTo(200);
        assertThat(json(health).get("status").asText()).isEqualTo("ok");
        assertThat(Http.get(edge.address, "/readyz").status()).isEqualTo(200);
    }

    // ------------------------------------------------------------ 4. body size and syntax

    @Test
    void declaredBodyOverTheLimitIs413BeforeItIsReadAndTheConnectionCloses() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/open HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n");
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(json(r).toString()).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":1000}");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void theTenantsOwnBodyLimitApplies() throws Exception {
        Http.Response r = edge.post("/hooks/tiny", Map.of(), "x".repeat(101));
        assertThat(r.status()).isEqualTo(413);
        assertThat(json(r).get("limit").asLong()).isEqualTo(100);
        assertThat(edge.post("/hooks/tiny", Map.of(), "x".repeat(100)).status()).isEqualTo(202);
    }

    @Test
    void chunkedBodyIsRefusedTheMomentItPassesTheLimit() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/open HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
            http.write("258\r\n" + "a".repeat(600) + "\r\n");
            http.write("258\r\n" + "b".repeat(600) + "\r\n"); // passes 1000 here; no last chunk is ever sent
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(json(r).get("limit").asLong()).isEqualTo(1000);
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void chunkedBodyWithinTheLimitIsAccepted() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(202);
            String id = json(r).get("id").asText();
            assertThat(edge.backends().store().get(id)).get()
                    .satisfies(h -> assertThat(new String(h.body(), StandardCharsets.UTF_8)).isEqualTo("abcdefg"));
        }
    }

    @Test
    void aControlByteInAHeaderValueIs400NamingTheHeader() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\n{}");
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(json(r).toString()).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"X-Bad\"}");
        }
    }

    @Test
    void aHeaderNameThatIsNotATokenIs400NamingIt() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nX@Odd: v\r\nContent-Length: 2\r\n\r\n{}");
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(json(r).toString()).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"X@Odd\"}");
        }
    }

    @Test
    void headersOverMaxHeaderBytesAre431() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Big: " + "v".repeat(3000) + "\r\nContent-Length: 2\r\n\r\n{}");
            Http.Response r = http.read();
            assertThat(r.status()).isEqualTo(431);
            assertThat(json(r).get("error").asText()).isEqualTo("headers_too_large");
        }
    }

    @Test
    void aClientTooSlowToSendItsBodyIsCutWith408() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc");
            Http.Response r = http.read(); // arrives after read_timeout_ms; the client never sends the rest
            assertThat(r.status()).isEqualTo(408);
            assertThat(json(r).get("error").asText()).isEqualTo("request_timeout");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void aClientThatNeverFinishesItsHeadersIsCut() {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Slow: ");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    // ------------------------------------------------------------ 5. verification

    @Test
    void badSignaturesAre401WithTheReason() throws Exception {
        Http.Response missing = edge.post("/hooks/signed", Map.of(), "{}");
        assertThat(missing.status()).isEqualTo(401);
        assertThat(json(missing).toString())
                .isEqualTo("{\"error\":\"verification_failed\",\"reason\":\"missing_signature\"}");
        String wrong = Signatures.hmac("sha256", "hex", "sha256=", "not-the-secret", "{}".getBytes(StandardCharsets.UTF_8));
        Http.Response noMatch = edge.post("/hooks/signed", Map.of("X-Signature", wrong), "{}");
        assertThat(noMatch.status()).isEqualTo(401);
        assertThat(json(noMatch).get("reason").asText()).isEqualTo("no_match");
        String right = Signatures.hmac("sha256", "hex", "sha256=", "s3cret", "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(edge.post("/hooks/signed", Map.of("X-Signature", right), "{}").status()).isEqualTo(202);
    }

    // ------------------------------------------------------------ 6, 7, 9. duplicate, tenant quota, commit

    @Test
    void acceptedThenDuplicateThenTenantLimitedWithRateLimitHeaders() throws Exception {
        Http.Response first = edge.post("/hooks/open", Map.of("X-Event-Id", "evt-1"), "{\"n\":1}");
        assertThat(first.status()).isEqualTo(202);
        JsonNode body = json(first);
        assertThat(body.get("status").asText()).isEqualTo("accepted");
        String id = body.get("id").asText();
        assertThat(id).matches(UUID_V7);
        assertThat(first.header("RateLimit-Policy")).isEqualTo("\"tenant\";q=3;w=3");
        assertThat(first.header("RateLimit")).isEqualTo("\"tenant\";r=2;t=1");

        Http.Response again = edge.post("/hooks/open", Map.of("X-Event-Id", "evt-1"), "{\"n\":1}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(json(again).toString()).isEqualTo("{\"status\":\"duplicate\",\"id\":\"" + id + "\"}");
        assertThat(again.header("RateLimit")).as("a duplicate spends no budget").isEqualTo("\"tenant\";r=2;t=1");

        assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "evt-2"), "{}").status()).isEqualTo(202);
        assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "evt-3"), "{}").status()).isEqualTo(202);
        Http.Response limited = edge.post("/hooks/open", Map.of("X-Event-Id", "evt-4"), "{}");
        assertThat(limited.status()).isEqualTo(429);
        assertThat(json(limited).toString())
                .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"tenant\",\"retry_after_ms\":1000}");
        assertThat(limited.header("Retry-After")).isEqualTo("1");
        assertThat(limited.header("RateLimit-Policy")).isEqualTo("\"tenant\";q=3;w=3");
        assertThat(limited.header("RateLimit")).isEqualTo("\"tenant\";r=0;t=3");

        edge.clock.advance(Duration.ofSeconds(1));
        assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "evt-4"), "{}").status()).isEqualTo(202);
    }

    @Test
    void tenantBytesRefusalIs429TenantBytes() throws Exception {
        assertThat(edge.post("/hooks/bulk", Map.of(), "x".repeat(200)).status()).isEqualTo(202);
        Http.Response r = edge.post("/hooks/bulk", Map.of(), "x".repeat(200));
        assertThat(r.status()).isEqualTo(429);
        // 250-byte burst at 100 B/s: 200 + 200 needs 150 bytes more, 1.5 s
        assertThat(json(r).toString())
                .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"tenant_bytes\",\"retry_after_ms\":1500}");
        assertThat(r.header("Retry-After")).isEqualTo("2");
    }

    @Test
    void aSharedSourceUnderPathRoutingBelongsToTenantDefault() throws Exception {
        Http.Response r = edge.post("/hooks/free", Map.of("X-Event-Id", "shared-1"), "{}");
        assertThat(r.status()).isEqualTo(202);
        assertThat(edge.backends().store().get(json(r).get("id").asText()).orElseThrow().tenant()).isEqualTo("default");
        assertThat(r.header("RateLimit")).as("tenant default has no limit here").isNull();
    }

    @Test
    void keepAliveServesSeveralRequestsOnOneConnection() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            for (int i = 0; i < 5; i++) {
                Http.Response r = http.request("POST", "/hooks/free", Map.of("X-Event-Id", "ka-" + i),
                        "{}".getBytes(StandardCharsets.UTF_8));
                assertThat(r.status()).isEqualTo(202);
                assertThat(r.header("connection")).isNull();
            }
            assertThat(http.request("GET", "/healthz", Map.of(), null).status()).isEqualTo(200);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            // three requests in one write: a hook (answered from a worker), a probe and a
            // refusal (both answered on the event loop) must come back in that order
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Event-Id: pipe-1\r\nContent-Length: 2\r\n\r\n{}"
                    + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /hooks/nope HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
                    + "POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Event-Id: pipe-1\r\nContent-Length: 2\r\n\r\n{}");
            Http.Response hook = http.read();
            assertThat(hook.status()).isEqualTo(202);
            assertThat(http.read().status()).isEqualTo(200);
            assertThat(json(http.read()).get("error").asText()).isEqualTo("unknown_source");
            Http.Response again = http.read();
            assertThat(again.status()).isEqualTo(200);
            assertThat(json(again).get("id").asText()).isEqualTo(json(hook).get("id").asText());
        }
    }

    @Test
    void expectContinueGets100ThenTheAnswer() throws Exception {
        try (Http http = Http.connect(edge.address)) {
            http.write("POST /hooks/free HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
            assertThat(http.read().status()).isEqualTo(100);
            http.write("{}");
            assertThat(http.read().status()).isEqualTo(202);
        }
    }
}

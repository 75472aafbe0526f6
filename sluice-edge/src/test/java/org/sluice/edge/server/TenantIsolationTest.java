package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.verify.Signatures;

/** One tenant's trouble stays its own: forged floods, rate floods, and a full queue share. */
class TenantIsolationTest {

    @TempDir
    Path dir;

    static final String SIGNED = """
            http: {listen: "127.0.0.1:0"}
            rate_limits:
              tenants:
                a: {rate: 1, burst: 3}
                b: {rate: 1, burst: 3}
            sources:
              sa: {tenant: a, verify: {scheme: github, secrets: ["secret-a"]}}
              sb: {tenant: b, verify: {scheme: github, secrets: ["secret-b"]}}
            """;

    static Map<String, String> signed(String secret, byte[] body) {
        return Map.of("X-Hub-Signature-256", Signatures.github(secret, body));
    }

    @Test
    void aForgedFloodSpendsNoTenantBudget() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, SIGNED)) {
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 200; i++) {
                Http.Response forged = Http.post(edge.address, "/hooks/sa", signed("guess-" + i, body), body);
                assertThat(forged.status()).isEqualTo(401);
            }
            // tenant a's whole burst is still there: exactly 3 admitted, then refused
            for (int i = 0; i < 3; i++) {
                assertThat(Http.post(edge.address, "/hooks/sa", signed("secret-a", body), body).status()).isEqualTo(202);
            }
            Http.Response fourth = Http.post(edge.address, "/hooks/sa", signed("secret-a", body), body);
            assertThat(fourth.status()).isEqualTo(429);
            assertThat(json(fourth).get("scope").asText()).isEqualTo("tenant");
        }
    }

    @Test
    void tenantAsFloodLeavesTenantBsAdmissionsUntouched() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, SIGNED)) {
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            int admittedA = 0;
            for (int i = 0; i < 100; i++) {
                int status = Http.post(edge.address, "/hooks/sa", signed("secret-a", body), body).status();
                assertThat(status).isIn(202, 429);
                admittedA += status == 202 ? 1 : 0;
            }
            assertThat(admittedA).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(Http.post(edge.address, "/hooks/sb", signed("secret-b", body), body).status()).isEqualTo(202);
            }
        }
    }

    @Test
    void aTenantOverItsQueueShareGets429WhileOthersCommit() throws Exception {
        // One partition that writes a batch once it holds 3 hooks (or after a minute): tenant a's
        // two hooks wait in it, so a's third is over its share of 2 while b's hook fills the batch.
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  tenants:
                    a: {rate: 1000, burst: 1000, max_queue: 2}
                    b: {rate: 1000, burst: 1000, max_queue: 2}
                intake: {partitions: 1, max_batch: 3, max_delay_ms: 60000}
                sources:
                  sa: {tenant: a, verify: {scheme: none}}
                  sb: {tenant: b, verify: {scheme: none}}
                """)) {
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<CompletableFuture<Http.Response>> held = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    held.add(CompletableFuture.supplyAsync(() -> edge.post("/hooks/sa", Map.of(), "{}"), pool));
                }
                TestEdge.await(() -> edge.backends().intake().queuedHooks() == 2); // both held, unanswered
                Http.Response over = edge.post("/hooks/sa", Map.of(), "{}");
                assertThat(over.status()).isEqualTo(429);
                assertThat(json(over).toString()).isEqualTo("{\"error\":\"tenant_overload\",\"retry_after_ms\":1000}");
                assertThat(over.header("Retry-After")).isEqualTo("1");

                Http.Response other = edge.post("/hooks/sb", Map.of(), "{}"); // completes the batch of 3
                assertThat(other.status()).isEqualTo(202);
                for (CompletableFuture<Http.Response> f : held) {
                    assertThat(f.get().status()).isEqualTo(202);
                }
                assertThat(MetricsTest.scrape(edge)).contains("sluice_ingest_requests_total{outcome=\"overload\"} 0.0");
            } finally {
                pool.shutdownNow();
            }
        }
    }
}

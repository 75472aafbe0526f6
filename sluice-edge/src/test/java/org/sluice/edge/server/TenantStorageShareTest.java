package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.HookStore;

/**
 * One tenant cannot fill the store for everyone (issue 46, point 4): with
 * {@code max_stored_bytes: 1000}, tenant a's 300-byte hooks are accepted while a holds less
 * than 1000 body bytes (the fourth takes it to 1200), then refused with
 * {@code 429 {"error":"rate_limited","scope":"tenant_storage",...}}; tenant b is not touched;
 * once retention has deleted a's hooks, a is accepted again. A real server on a real store,
 * on a manual wall clock.
 */
class TenantStorageShareTest {

    static final String CONFIG = """
            http: {listen: "127.0.0.1:0"}
            retention: {hooks_seconds: 10, dead_seconds: 10}
            rate_limits:
              default: {rate: 1000, burst: 1000, max_stored_bytes: 1000}
              tenants:
                a: {rate: 1000, burst: 1000, max_stored_bytes: 1000}
            sources:
              sa: {tenant: a, verify: {scheme: none}}
              sb: {tenant: b, verify: {scheme: none}}
            """;

    @TempDir
    Path dir;

    @Test
    void aTenantAtItsStoreShareGets429TenantStorageUntilRetentionFreesItsHooks() throws Exception {
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        String body = "x".repeat(300);
        try (TestEdge edge = TestEdge.startWith(dir, CONFIG, b -> b.epochMillis(now::get))) {
            HookStore store = edge.backends().store();
            for (int i = 1; i <= 4; i++) {
                assertThat(edge.post("/hooks/sa", Map.of(), body).status()).as("hook %s of a", i).isEqualTo(202);
            }
            assertThat(store.storedBytes("a")).isEqualTo(1200);

            Http.Response refused = edge.post("/hooks/sa", Map.of(), body);
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.body())
                    .isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"tenant_storage\",\"retry_after_ms\":5000}");
            assertThat(refused.header("Retry-After")).isEqualTo("5");
            assertThat(refused.header("Content-Type")).isEqualTo("application/json");
            assertThat(store.storedBytes("a")).as("nothing of a refused hook is stored").isEqualTo(1200);

            for (int i = 1; i <= 4; i++) { // b has the default's share of its own
                assertThat(edge.post("/hooks/sb", Map.of(), body).status()).as("hook %s of b", i).isEqualTo(202);
            }
            assertThat(store.storedBytes("b")).isEqualTo(1200);
            assertThat(RetentionTest.metric(edge, "sluice_admission_refusals_total{scope=\"tenant_storage\"}"))
                    .isEqualTo(1.0);

            now.addAndGet(TimeUnit.SECONDS.toMillis(11)); // past hooks_seconds: retention deletes them
            edge.server.retainOnce();
            TestEdge.await(() -> store.storedBytes("a") == 0);
            assertThat(edge.post("/hooks/sa", Map.of(), body).status()).as("a's space is back").isEqualTo(202);
            assertThat(store.storedBytes("a")).isEqualTo(300);
        }
    }
}

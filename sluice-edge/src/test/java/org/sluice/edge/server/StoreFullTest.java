package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code store.max_bytes} on a real server with a real RocksDB: filled past the bound, new
 * hooks are answered {@code 503 store_full} with {@code Retry-After} and {@code /readyz} is 503
 * {@code store_full}, while a duplicate of a stored hook is still answered 200; once retention
 * has deleted the old hooks (a manual wall clock moved past {@code retention.hooks_seconds})
 * the space is reclaimed and ingest and readiness come back by themselves.
 */
class StoreFullTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The bound, above the memtables' first arena blocks: a memtable takes its memory from
     * RocksDB in blocks of about 1 MiB (a family that inserts with a hint takes its first
     * block at its first write, see storage.md, "Memtable inserts in order"), and the store's
     * size counts them. At 256 KiB the first hook's blocks filled the store. 2 MiB takes about twenty hooks.
     */
    private static final long MAX_BYTES = 2 * 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void pastStoreMaxBytesNewHooksAre503StoreFullAndIngestResumesOnceRetentionFreesSpace() throws Exception {
        OpenApiDocument spec = OpenApiDocument.load("ingest.yaml");
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        String body = "{\"pad\":\"" + "x".repeat(1024) + "\"}";
        try (TestEdge edge = TestEdge.startWith(dir, """
                http: {listen: "127.0.0.1:0"}
                store: {max_bytes: %d}
                retention: {hooks_seconds: 60, dead_seconds: 60}
                sources:
                  keep: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(MAX_BYTES), b -> b.epochMillis(now::get))) {
            edge.server.retainOnce();
            assertThat(Http.get(edge.address, "/readyz").status()).as("an empty store is under the bound").isEqualTo(200);

            // fill: each post is followed by a retention tick, which reads the size again
            List<String> accepted = new ArrayList<>();
            Http.Response full = null;
            for (int i = 0; i < 5_000 && full == null; i++) {
                Http.Response r = edge.post("/hooks/keep", Map.of("X-Event-Id", "k" + i), body);
                if (r.status() == 503) {
                    full = r;
                } else {
                    accepted.add(IngestSchedulingTest.accepted(r));
                    edge.server.retainOnce();
                }
            }
            assertThat(full).as("the store reached %d bytes within 5000 hooks", MAX_BYTES).isNotNull();
            assertThat(accepted).isNotEmpty();
            assertThat(full.body()).isEqualTo("{\"error\":\"store_full\"}");
            assertThat(full.header("Retry-After")).isEqualTo("5");
            spec.check("POST", "/hooks/keep", full);
            assertThat(RetentionTest.metric(edge, "sluice_store_bytes")).isGreaterThanOrEqualTo(MAX_BYTES);
            assertThat(RetentionTest.metric(edge, "sluice_store_max_bytes")).as("the bound, for alerts on headroom")
                    .isEqualTo(MAX_BYTES);

            Http.Response ready = Http.get(edge.address, "/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"store_full\"}");
            spec.check("GET", "/readyz", ready);

            Http.Response duplicate = edge.post("/hooks/keep", Map.of("X-Event-Id", "k0"), body);
            assertThat(duplicate.status()).as("a duplicate adds nothing: still answered").isEqualTo(200);
            assertThat(JSON.readTree(duplicate.body()).get("id").asText()).isEqualTo(accepted.get(0));
            assertThat(edge.post("/hooks/keep", Map.of("X-Event-Id", "later"), body).status()).isEqualTo(503);

            now.addAndGet(TimeUnit.SECONDS.toMillis(61)); // every stored hook is past hooks_seconds
            edge.server.retainOnce();
            TestEdge.await(() -> Http.get(edge.address, "/readyz").status() == 200);
            assertThat(RetentionTest.metric(edge, "sluice_store_bytes")).isLessThan(MAX_BYTES);
            assertThat(RetentionTest.deletedTotal(edge)).as("every hook, the newest too")
                    .isEqualTo(accepted.size());
            Http.Response resumed = edge.post("/hooks/keep", Map.of("X-Event-Id", "later"), body);
            assertThat(resumed.status()).as(resumed.body()).isEqualTo(202);
            assertThat(edge.backends().store().get(accepted.get(accepted.size() - 1))).isEmpty();
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.StoreFaults;

/** Steps 6 and 9: duplicates, the node's queue, store failure and readiness. */
class CommitPathTest {

    @TempDir
    Path dir;

    @Test
    void twoCopiesInOneBatchAreOneStoredHook() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                intake: {partitions: 1, max_batch: 2, max_delay_ms: 60000}
                sources:
                  a: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """)) {
            // neither copy is committed when the other is checked, so both reach the batch of 2
            CompletableFuture<Http.Response> one = CompletableFuture.supplyAsync(
                    () -> edge.post("/hooks/a", Map.of("X-Event-Id", "same"), "{\"copy\":1}"));
            CompletableFuture<Http.Response> two = CompletableFuture.supplyAsync(
                    () -> edge.post("/hooks/a", Map.of("X-Event-Id", "same"), "{\"copy\":2}"));
            List<Http.Response> both = List.of(one.get(), two.get());
            assertThat(both).extracting(Http.Response::status).containsExactlyInAnyOrder(202, 200);
            String id202 = json(both.stream().filter(r -> r.status() == 202).findFirst().orElseThrow()).get("id").asText();
            String id200 = json(both.stream().filter(r -> r.status() == 200).findFirst().orElseThrow()).get("id").asText();
            assertThat(id200).isEqualTo(id202);
            List<StoredHook> stored = StoredHooks.all(edge.backends().store());
            assertThat(stored).hasSize(1);
            assertThat(stored.get(0).id()).isEqualTo(id202);
            assertThat(stored.get(0).dedupeKey()).isEqualTo("same");
            assertThat(stored.get(0).headers()).containsEntry("X-Event-Id", "same");
        }
    }

    @Test
    void aFullNodeQueueIs503OverloadWithRetryAfter1() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                intake: {partitions: 1, max_batch: 10, max_delay_ms: 60000, max_queue: 1}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            CompletableFuture<Http.Response> held = CompletableFuture.supplyAsync(() -> edge.post("/hooks/a", Map.of(), "{}"));
            TestEdge.await(() -> edge.backends().intake().queuedHooks() == 1);
            Http.Response overload = edge.post("/hooks/a", Map.of(), "{}");
            assertThat(overload.status()).isEqualTo(503);
            assertThat(json(overload).toString()).isEqualTo("{\"error\":\"overload\"}");
            assertThat(overload.header("Retry-After")).isEqualTo("1");
            edge.close(); // a graceful stop flushes the batcher: the held hook commits and is answered
            assertThat(held.get().status()).isEqualTo(202);
        }
    }

    @Test
    void aStoreThatCannotWriteIs503StoreUnavailable() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  a: {verify: {scheme: none}}
                """)) {
            StoreFaults.failWrites(edge.backends().store(), true);
            Http.Response failed = edge.post("/hooks/a", Map.of(), "{}");
            assertThat(failed.status()).isEqualTo(503);
            assertThat(json(failed).toString()).isEqualTo("{\"error\":\"store_unavailable\"}");
            assertThat(failed.header("Retry-After")).isEqualTo("1");
            StoreFaults.failWrites(edge.backends().store(), false);
            assertThat(edge.post("/hooks/a", Map.of(), "{}").status()).isEqualTo(202);
        }
    }

    @Test
    void readyzIs503OnceTheStoreIsClosed() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  a: {verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """)) {
            assertThat(Http.get(edge.address, "/readyz").status()).isEqualTo(200);
            edge.backends().store().close();
            Http.Response ready = Http.get(edge.address, "/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"store_closed\"}");
            assertThat(ready.header("Retry-After")).isEqualTo("1");
            assertThat(Http.get(edge.address, "/healthz").status()).isEqualTo(200);
            Http.Response hook = edge.post("/hooks/a", Map.of("X-Event-Id", "k"), "{}");
            assertThat(hook.status()).isEqualTo(503);
            assertThat(json(hook).get("error").asText()).isEqualTo("store_unavailable");
        }
    }

    @Test
    void readyzIs503IntakePartitionDownWhileAWriterKilledByAnErrorIsDownAndTheKeyIsAcceptedAfter() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean poison = new java.util.concurrent.atomic.AtomicBoolean(true);
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  a: {verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """, commit -> batch -> {
                    if (poison.get()) {
                        throw new StackOverflowError("test: the writer's commit overflowed its stack");
                    }
                    return commit.commit(batch);
                })) {
            // the partition is down from the Error until the restart a second later: the first probe after the
            // 503 almost always lands inside; should a stalled machine miss it, the next failing hook tries again
            Http.Response ready = null;
            for (int attempt = 0; attempt < 20; attempt++) {
                Http.Response failed = edge.post("/hooks/a", Map.of("X-Event-Id", "k"), "{}");
                assertThat(failed.status()).isEqualTo(503);
                assertThat(json(failed).get("error").asText()).isEqualTo("store_unavailable");
                ready = Http.get(edge.address, "/readyz");
                if (ready.status() == 503) {
                    break;
                }
            }
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"intake_partition_down\"}");

            poison.set(false);
            TestEdge.await(() -> Http.get(edge.address, "/readyz").status() == 200);
            Http.Response accepted = edge.post("/hooks/a", Map.of("X-Event-Id", "k"), "{}");
            assertThat(accepted.status()).as("the key whose writer died").isEqualTo(202);
            assertThat(StoredHooks.all(edge.backends().store())).extracting(h -> h.id())
                    .containsExactly(json(accepted).get("id").asText());
        }
    }
}

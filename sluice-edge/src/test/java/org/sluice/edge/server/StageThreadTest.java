package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the stage runs: a small hook of a source that is never looked up in the store
 * ({@code dedupe: none}) is verified, charged, queued and answered from its event loop, so
 * it needs no ingest worker at any step; a hook with a dedupe key, or a body over
 * {@code HookHandler.HERE_MAX_BODY}, still goes to a worker.
 */
class StageThreadTest {

    @TempDir
    Path dir;

    @Test
    void aSmallHookWithoutDedupeIsAnsweredWhileEveryWorkerIsHeldADedupedOrBigOneWaitsForAWorker() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  plain: {tenant: acme, verify: {scheme: none}}
                  keyed: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """)) {
            ExecutorService client = Executors.newSingleThreadExecutor();
            int workers = edge.server.ingestWorkers().getParallelism();
            CountDownLatch running = new CountDownLatch(workers);
            CountDownLatch release = new CountDownLatch(1);
            for (int i = 0; i < workers; i++) {
                edge.server.ingestWorkers().execute(() -> {
                    running.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            ExecutorService client2 = Executors.newSingleThreadExecutor();
            CompletableFuture<Http.Response> keyed;
            CompletableFuture<Http.Response> big;
            try {
                assertThat(running.await(30, TimeUnit.SECONDS)).as("every ingest worker is held").isTrue();
                keyed = CompletableFuture.supplyAsync(
                        () -> edge.post("/hooks/keyed", Map.of("X-Event-Id", "evt-1"), "{\"n\":1}"), client);
                String bigBody = "{\"pad\":\"" + "x".repeat(70 * 1024) + "\"}";
                big = CompletableFuture.supplyAsync(() -> edge.post("/hooks/plain", Map.of(), bigBody), client2);

                Http.Response plain = edge.post("/hooks/plain", Map.of(), "{\"n\":2}");
                assertThat(plain.status()).as("answered with no worker free").isEqualTo(202);
                assertThat(plain.body()).contains("\"status\":\"accepted\"");
                // cannot be done yet: its stage needs a worker, and every one is held
                assertThat(keyed).as("the deduped hook, while every worker is held").isNotDone();
                assertThat(big).as("a body over HERE_MAX_BODY, while every worker is held").isNotDone();
            } finally {
                release.countDown();
                client.shutdown();
                client2.shutdown();
            }
            Http.Response answered = keyed.get(30, TimeUnit.SECONDS);
            assertThat(answered.status()).as("the deduped hook once a worker is free").isEqualTo(202);
            assertThat(big.get(30, TimeUnit.SECONDS).status()).as("the big body once a worker is free").isEqualTo(202);
            Http.Response again = edge.post("/hooks/keyed", Map.of("X-Event-Id", "evt-1"), "{\"n\":1}");
            assertThat(again.status()).as("its copy, found in the store by a worker").isEqualTo(200);
        }
    }
}

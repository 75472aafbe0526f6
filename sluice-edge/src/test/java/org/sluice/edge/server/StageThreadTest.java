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
 * Where the stage runs: a hook of at most {@code HookHandler.HERE_MAX_BODY} is verified,
 * looked up, charged, queued and answered from its event loop, so it needs no ingest worker
 * at any step, as long as its duplicate lookup is answered from memory; a lookup that would
 * read the disk, and a bigger body, wait for a worker.
 */
class StageThreadTest {

    @TempDir
    Path dir;

    @Test
    void smallHooksAreAnsweredWhileEveryWorkerIsHeldALookupOnDiskOrABigBodyWaitsForAWorker() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  plain: {tenant: acme, verify: {scheme: none}}
                  keyed: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """)) {
            ExecutorService client = Executors.newSingleThreadExecutor();
            ExecutorService client2 = Executors.newSingleThreadExecutor();
            CountDownLatch release = edge.holdIngestWorkers();
            CompletableFuture<Http.Response> copy;
            CompletableFuture<Http.Response> big;
            String firstBody;
            try {
                assertThat(edge.server.ingestWorkers().getQueuedSubmissionCount()).as("nothing queued yet").isZero();

                Http.Response plain = edge.post("/hooks/plain", Map.of(), "{\"n\":1}");
                assertThat(plain.status()).as("no dedupe key, answered with no worker free").isEqualTo(202);
                Http.Response first = edge.post("/hooks/keyed", Map.of("X-Event-Id", "evt-1"), "{\"n\":2}");
                assertThat(first.status()).as("a new key, looked up in memory, with no worker free").isEqualTo(202);
                firstBody = first.body();

                edge.backends().store().reclaim(); // evt-1's dedupe entry now sits in an SST file, its block not cached
                java.util.concurrent.ForkJoinPool pool = edge.server.ingestWorkers();
                copy = CompletableFuture.supplyAsync(
                        () -> edge.post("/hooks/keyed", Map.of("X-Event-Id", "evt-1"), "{\"n\":2}"), client);
                TestEdge.await(() -> pool.getQueuedSubmissionCount() == 1); // its lookup, handed to the held pool
                assertThat(copy).as("a copy whose lookup needs the disk, while every worker is held").isNotDone();
                String bigBody = "{\"pad\":\"" + "x".repeat(70 * 1024) + "\"}";
                big = CompletableFuture.supplyAsync(() -> edge.post("/hooks/plain", Map.of(), bigBody), client2);
                TestEdge.await(() -> pool.getQueuedSubmissionCount() == 2); // its whole stage, handed over too
                assertThat(big).as("a body over HERE_MAX_BODY, while every worker is held").isNotDone();
            } finally {
                release.countDown();
                client.shutdown();
                client2.shutdown();
            }
            Http.Response answered = copy.get(30, TimeUnit.SECONDS);
            assertThat(answered.status()).as("the copy, found on the disk by a worker").isEqualTo(200);
            assertThat(answered.body()).contains(firstBody.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1"));
            assertThat(big.get(30, TimeUnit.SECONDS).status()).as("the big body once a worker is free").isEqualTo(202);
        }
    }
}

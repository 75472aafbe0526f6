package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.sluice.edge.admission.Lease;
import org.sluice.edge.admission.Refusal;
import org.sluice.edge.admission.ShareResult;
import org.sluice.edge.admission.TenantGate;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.ManualClock;

/**
 * The worker stage on its own, over a sink whose commit the test completes from a thread of
 * its own (standing in for the intake's writer): what follows the commit runs on the worker
 * pool, never on the thread that completed the commit.
 */
class HookStageTest {

    @Test
    void theWorkAfterTheCommitRunsOnTheWorkerPoolNotOnTheWriterThread() throws Exception {
        ExecutorService workers = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-worker"));
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-writer"));
        try {
            List<String> releasedOn = new ArrayList<>();
            CompletableFuture<CommitResult> commit = new CompletableFuture<>();
            TenantGate tenants = new TenantGate() {
                public long bodyLimit(String tenant) {
                    return Long.MAX_VALUE;
                }

                public Refusal charge(String tenant, long bytes) {
                    return null;
                }

                public ShareResult acquire(String tenant, long bytes) {
                    return Lease.NONE;
                }

                public void release(Lease lease) {
                    synchronized (releasedOn) {
                        releasedOn.add(Thread.currentThread().getName());
                    }
                }

                public String[] rateLimitHeaders(String tenant) {
                    return null;
                }
            };
            HookSink sink = new HookSink() {
                public String findDuplicate(String tenant, String source, String dedupeKey) {
                    return null;
                }

                public CompletableFuture<CommitResult> submit(PendingHook hook) {
                    return commit;
                }

                public String notReadyReason() {
                    return null;
                }
            };
            HookStage stage = new HookStage(tenants, sink, false,
                    new IngestMetrics(new SimpleMeterRegistry(), new ManualClock(0), new org.sluice.edge.stats.StatsRing(() -> 0L)), () -> 0L, null, workers);
            Exchange exchange = new Exchange(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/hooks/a"), 0L);
            exchange.source = new SourceRoute("a", null, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null);
            exchange.tenant = "default";

            CompletableFuture<HookStage.Response> answer =
                    CompletableFuture.supplyAsync(() -> stage.process(new ReceivedHook(exchange, new byte[0])), workers)
                            .thenCompose(f -> f);
            Eventually.until("the stage to wait on the commit", () -> commit.getNumberOfDependents() > 0);
            writer.submit(() -> commit.complete(CommitResult.accepted("id-1"))).get(30, TimeUnit.SECONDS);
            HookStage.Response response = answer.get(30, TimeUnit.SECONDS);

            assertThat(response.outcome()).isEqualTo(Outcome.ACCEPTED);
            assertThat(releasedOn).containsExactly("test-worker");
            response.response().release();
        } finally {
            workers.shutdownNow();
            writer.shutdownNow();
        }
    }
}

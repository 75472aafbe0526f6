package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.sluice.core.InMemoryOverrideStore;
import org.sluice.core.Limit;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantLimits;
import org.sluice.edge.admission.TenantAdmission;
import org.sluice.edge.stats.StatsRing;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.ManualClock;

/**
 * The worker stage on its own, over the node's real admission and a sink whose commit the
 * test completes from a thread of its own (standing in for the intake's writer): what
 * follows the commit runs on the worker pool, never on the thread that completed the commit.
 */
class HookStageTest {

    @Test
    void theWorkAfterTheCommitRunsOnTheWorkerPoolNotOnTheWriterThread() throws Exception {
        ExecutorService workers = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-worker"));
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-writer"));
        try {
            List<String> answeredOn = new CopyOnWriteArrayList<>();
            CompletableFuture<CommitResult> commit = new CompletableFuture<>();
            ManualClock clock = new ManualClock(0);
            // a queue of one hook: the second hook is admitted only if the first one's share was given back
            TenantLimits limits = new TenantLimits(Limit.of(1_000, 1_000).withMaxQueue(1), Map.of(),
                    new InMemoryOverrideStore(), clock);
            TenantAdmission tenants = new TenantAdmission(limits, new QueueShares(), null, null, Long.MAX_VALUE, false);
            HookSink sink = new HookSink() {
                public String findDuplicate(String tenant, String source, String dedupeKey) {
                    return null;
                }

                public CompletableFuture<CommitResult> submit(PendingHook hook) {
                    return commit.isDone() ? CompletableFuture.completedFuture(CommitResult.accepted("id-2")) : commit;
                }

                public String notReadyReason() {
                    return null;
                }
            };
            HookStage stage = new HookStage(tenants, sink,
                    new IngestMetrics(new SimpleMeterRegistry(), clock, new StatsRing(() -> 0L)), () -> 0L, workers);
            IngestExchange exchange = new IngestExchange(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/hooks/a"), 0L);
            exchange.source = new SourceRoute("a", null, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null,
                    List.of("downstream"));
            exchange.tenant = "default";

            CompletableFuture<HookStage.Response> answer =
                    CompletableFuture.supplyAsync(() -> stage.process(new ReceivedHook(exchange, new byte[0])), workers)
                            .thenCompose(f -> f.whenComplete((r, e) -> answeredOn.add(Thread.currentThread().getName())));
            Eventually.until("the stage to wait on the commit", () -> commit.getNumberOfDependents() > 0);
            writer.submit(() -> commit.complete(CommitResult.accepted("id-1"))).get(30, TimeUnit.SECONDS);
            HookStage.Response response = answer.get(30, TimeUnit.SECONDS);

            assertThat(response.outcome()).isEqualTo(IngestOutcome.ACCEPTED);
            assertThat(answeredOn).as("the stage answered after the commit on").containsExactly("test-worker");
            response.response().release();

            HookStage.Response second = stage.process(new ReceivedHook(exchange, new byte[0])).get(30, TimeUnit.SECONDS);
            assertThat(second.outcome()).isEqualTo(IngestOutcome.ACCEPTED);
            second.response().release();
        } finally {
            workers.shutdownNow();
            writer.shutdownNow();
        }
    }
}

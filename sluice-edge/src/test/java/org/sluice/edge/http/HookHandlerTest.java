package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.Wire.body;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.sluice.core.InMemoryOverrideStore;
import org.sluice.core.Limit;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantLimits;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.admission.TenantAdmission;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.testkit.ManualClock;

/**
 * {@link HookHandler} in a real Netty pipeline, over the node's real admission and a sink
 * that commits at once: a small hook's whole stage runs on the connection's event loop (no
 * worker is ever asked), its answer carries what admission said, and its body's bytes are
 * given back before the answer leaves.
 */
class HookHandlerTest {

    /** The worker pool: a small hook must never reach it. */
    private static final Executor NO_WORKER = task -> {
        throw new AssertionError("a small hook was handed to a worker");
    };

    private final ManualClock clock = new ManualClock(0);
    private final IngestMetrics metrics = Wire.metrics();
    private final InflightBodies bodies = new InflightBodies(1 << 20);
    private final InFlight inFlight = new InFlight();
    private final AtomicReference<RuntimeException> commitFailure = new AtomicReference<>();

    private final HookSink sink = new HookSink() {
        public String findDuplicate(String tenant, String source, String dedupeKey) {
            return null;
        }

        public CompletableFuture<CommitResult> submit(PendingHook hook) {
            if (commitFailure.get() != null) {
                throw commitFailure.get();
            }
            return CompletableFuture.completedFuture(CommitResult.accepted("id-" + new String(hook.body(), StandardCharsets.UTF_8)));
        }

        public String notReadyReason() {
            return null;
        }
    };

    private final EmbeddedChannel channel = Wire.channel(new HookHandler(
            new HookStage(new TenantAdmission(new TenantLimits(Limit.of(1, 1), Map.of(), new InMemoryOverrideStore(), clock),
                    new QueueShares(), null, null, 1 << 20, false), sink, metrics, () -> 0L, NO_WORKER),
            NO_WORKER, metrics, inFlight, bodies));

    /** A received hook whose body's bytes are held, as {@link BodyAggregator} leaves it. */
    private ReceivedHook hook(String body) {
        IngestExchange exchange = Wire.exchange(HttpMethod.POST, "/hooks/a", "Content-Length",
                Integer.toString(body.length()));
        exchange.source = new SourceRoute("a", null, (headers, b, now) -> VerifyOutcome.OK, (headers, b) -> null);
        exchange.tenant = "acme";
        exchange.bodyRead = true;
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assertThat(bodies.tryHold(bytes.length)).isTrue();
        return new ReceivedHook(exchange, bytes);
    }

    private FullHttpResponse answer(ReceivedHook hook) {
        channel.writeInbound(hook);
        channel.runPendingTasks(); // the continuations the stage queued on this event loop
        return channel.readOutbound();
    }

    @Test
    void aSmallHookIsAnsweredFromItsEventLoopWithItsRateLimitFields() {
        FullHttpResponse accepted = answer(hook("7"));
        assertThat(accepted.status()).isEqualTo(HttpResponseStatus.ACCEPTED);
        assertThat(accepted.headers().get("RateLimit-Policy")).isEqualTo("\"tenant\";q=1;w=1");
        assertThat(accepted.headers().get("RateLimit")).isEqualTo("\"tenant\";r=0;t=1");
        assertThat(body(accepted)).contains("\"id\":\"id-7\"");
        assertThat(bodies.held()).isZero();
        assertThat(inFlight.count()).isZero();
        assertThat(metrics.count(IngestOutcome.ACCEPTED)).isEqualTo(1.0);

        FullHttpResponse refused = answer(hook("8")); // the tenant's burst of one is spent
        assertThat(refused.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
        assertThat(refused.headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("1");
        assertThat(refused.headers().get("RateLimit")).isEqualTo("\"tenant\";r=0;t=1");
        assertThat(body(refused)).contains("\"scope\":\"tenant\"");
        assertThat(metrics.count(RefusalScope.TENANT)).isEqualTo(1.0);
        assertThat(metrics.count(IngestOutcome.RATE_LIMITED)).isEqualTo(1.0);
        assertThat(bodies.held()).isZero();
    }

    @Test
    void aStageThatThrowsIsAnswered503AndItsBytesGivenBack() {
        commitFailure.set(new IllegalStateException("the intake is gone"));
        FullHttpResponse response = answer(hook("9"));
        assertThat(response.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
        assertThat(body(response)).contains("store_unavailable");
        assertThat(bodies.held()).isZero();
        assertThat(inFlight.count()).isZero();
    }
}

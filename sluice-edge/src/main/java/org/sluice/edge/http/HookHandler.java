package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;
import org.sluice.edge.log.Warnings;

/**
 * Pipeline position: last, after {@link BodyAggregator}.
 *
 * <p>Concern: running the stage ({@link HookStage}) for a received hook and writing its
 * answer back on the channel's own event loop. A hook whose body is at most {@link
 * #HERE_MAX_BODY} runs its stage right here, where nothing of it waits (its duplicate lookup
 * is answered from memory, or handed to a worker when it needs the disk); a bigger one runs
 * on a worker. While a hook is out, {@link InOrderGate}
 * holds back whatever the client sends next (responses stay in order, and one connection
 * holds at most one hook in the server). Once the answer is written the hook's body bytes
 * are given back to {@link InflightBodies}.
 */
@ChannelHandler.Sharable
public final class HookHandler extends ChannelInboundHandlerAdapter {

    private static final Warnings FAILURES = new Warnings(LoggerFactory.getLogger(HookHandler.class),
            TimeUnit.SECONDS.toNanos(10));

    /**
     * The largest body whose stage runs on the event loop: verifying it (one HMAC per
     * configured secret, a few hundred MB/s each) takes well under a millisecond, so the
     * other connections of the loop hardly wait. A bigger one goes to a worker.
     */
    static final int HERE_MAX_BODY = 64 * 1024;

    private final HookStage stage;
    private final Executor workers;
    private final IngestMetrics metrics;
    private final InFlight inFlight;
    private final InflightBodies bodies;

    public HookHandler(HookStage stage, Executor workers, IngestMetrics metrics, InFlight inFlight, InflightBodies bodies) {
        this.stage = stage;
        this.workers = workers;
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.bodies = bodies;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ReceivedHook hook)) {
            ctx.fireChannelRead(msg);
            return;
        }
        inFlight.enter();
        CompletableFuture<HookStage.Response> answer;
        if (hook.body().length <= HERE_MAX_BODY) {
            answer = processHere(hook, ctx);
        } else {
            try {
                answer = CompletableFuture.supplyAsync(() -> stage.process(hook), workers).thenCompose(f -> f);
            } catch (RejectedExecutionException e) {
                answer = CompletableFuture.completedFuture(new HookStage.Response(Responses.overload(), IngestOutcome.OVERLOAD));
            }
        }
        answer.whenComplete((a, failure) -> ctx.executor().execute(() -> {
            HookStage.Response reply = a;
            if (failure != null) { // a store read that threw (closed, I/O error) or a bug: never unanswered
                FAILURES.warn("hook not processed, answered 503 store_unavailable: " + failure, failure);
                reply = new HookStage.Response(Responses.storeUnavailable(), IngestOutcome.STORE_UNAVAILABLE);
            }
            if (inFlight.draining()) {
                ctx.channel().attr(ResponseWriter.CLOSING).set(Boolean.TRUE);
            }
            bodies.release(hook.body().length); // before the answer: a client that has it sees the bytes given back
            ResponseWriter.send(ctx, hook.exchange(), reply.response(), reply.outcome(), metrics);
            inFlight.exit();
        }));
    }

    /**
     * The stage on this event loop: nothing of it waits here (verification of a small body,
     * the duplicate lookup from memory, the limits, the intake's in-memory queue; a fleet call
     * is asynchronous, and a lookup that needs the disk goes to a worker), and hand-offs to a
     * worker would cost more than the work (a wake-up there, one after the commit, and one
     * back). Its steps after the fleet's answer and after the commit run here too. A throw
     * becomes a failed answer, as it does on a worker.
     */
    private CompletableFuture<HookStage.Response> processHere(ReceivedHook hook, ChannelHandlerContext ctx) {
        try {
            return stage.process(hook, ctx.executor());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The tail of the pipeline: a connection reset or a broken pipe is a client that went
     * away (closed quietly); anything else is logged, rate-limited, and the connection closed.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof java.io.IOException)) {
            FAILURES.warn("closing an ingest connection after an unexpected error: " + cause, cause);
        }
        ctx.close();
    }
}

package org.sluice.edge.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Pipeline position: right after {@link InOrderGate}, before {@link RequestSyntaxHandler}.
 *
 * <p>Concern: {@code http.read_timeout_ms}. A deadline runs from the moment the server
 * waits for a request (the connection opened, or the previous response was written) until
 * that request has arrived whole. A client that has not sent its whole request by then is
 * cut: answered {@code 408} if its request had begun, closed silently if not (an idle
 * keep-alive connection). While the server works on a request no deadline runs; a
 * {@code 100 Continue} starts a fresh deadline for the body.
 *
 * <p>Why after the gate: this handler must see one request at a time, each one's answer
 * after its own last byte, so that "the current request" is always the one being read.
 * Before the gate it saw pipelined requests as they were decoded: a request whose headers
 * came in the same read as a whole one before it was marked begun before that first one
 * was answered, the answer then counted as its own, and no deadline was armed again (the
 * connection stayed open for ever); and a whole request pipelined behind another got a
 * deadline while the server was still working on it. Behind the gate, a pipelined request
 * is released only once the answer before it is written, which is exactly when its
 * deadline starts; the bytes the gate holds meanwhile wait on the server, not the client.
 *
 * <p>Where the request stands (being read, answered early) is followed by
 * {@link RequestProgress}, as on the admin listener; what is this handler's own is when the
 * one deadline runs.
 *
 * <p>Uses the event loop's own scheduler: the timer task runs on the channel's thread, so
 * no state here is shared.
 */
public final class ReadDeadlineHandler extends ChannelDuplexHandler {

    private final long timeoutNanos;
    private final IngestMetrics metrics;
    /** The one timer task: created once per connection, never per request. */
    private final Runnable onTimer = this::onTimer;
    private ChannelHandlerContext ctx;
    /** The pending timer, or null. It may fire before {@link #deadlineNanos}: it then waits again. */
    private ScheduledFuture<?> timer;
    /** A deadline runs (until {@link #deadlineNanos}, by {@link System#nanoTime()}). */
    private boolean armed;
    private long deadlineNanos;
    /** The current request: being read, answered early (it may still be sending a body we drop). */
    private final RequestProgress progress = new RequestProgress();

    public ReadDeadlineHandler(long timeoutMs, IngestMetrics metrics) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.metrics = metrics;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        ctx.fireChannelInactive();
    }

    /**
     * {@link RefusalFastPath} answered whole requests without the pipeline: the connection is
     * between requests, as after any answer, and the next request's deadline starts now.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == RefusalFastPath.BETWEEN_REQUESTS) {
            progress.between();
            arm(ctx);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (progress.read(msg)) {
            case WHOLE -> disarm(); // the server works on it: no deadline runs
            case WHOLE_ANSWERED -> arm(ctx); // a dropped body is complete: wait for the next request
            case BEGUN, NOTHING -> { } // the deadline that runs keeps running
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        // State first: writing an answer through the gate releases the next pipelined request,
        // which reaches channelRead here before ctx.write returns.
        if (ctx.channel().isOpen()) {
            switch (progress.wrote(msg)) {
                case CONTINUE -> arm(ctx); // the body starts now: the time we took to say so is not the client's
                case BETWEEN_REQUESTS -> arm(ctx); // the next request's deadline starts with this answer
                case MID_REQUEST, NOTHING -> { } // the request's own deadline keeps running while its body is dropped
            }
        }
        ctx.write(msg, promise);
    }

    /**
     * Starts the deadline from now. Rearming moves {@link #deadlineNanos} only; the pending
     * timer, if any, stays and waits again when it fires early, so a request costs no new
     * scheduled task (a keep-alive connection's timer fires at most once per timeout).
     */
    private void arm(ChannelHandlerContext ctx) {
        armed = true;
        deadlineNanos = System.nanoTime() + timeoutNanos;
        if (timer == null) {
            timer = ctx.executor().schedule(onTimer, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void disarm() {
        armed = false;
    }

    private void onTimer() {
        timer = null;
        if (!armed) {
            return;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            timer = ctx.executor().schedule(onTimer, left, TimeUnit.NANOSECONDS);
            return;
        }
        armed = false;
        expire(ctx);
    }

    private void expire(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean owed = progress.owesTimeout();
        if (owed) {
            metrics.answered(IngestOutcome.TIMEOUT, 0L);
            ctx.channel().attr(ResponseWriter.CLOSING).set(Boolean.TRUE);
        }
        RequestProgress.timeOut(ctx, owed);
    }
}

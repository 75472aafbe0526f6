package org.sluice.edge.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Pipeline position: after the HTTP codec (and {@link ConnectionsPerAddress}'s handler when
 * {@code http.max_connections_per_ip} is set), before {@link ReadDeadlineHandler}.
 *
 * <p>Concern: HTTP/1.1 answers leave in request order. A request whose answer is still being
 * worked on (its hook's stage waits for a disk read, the fleet or the commit, or runs on a
 * worker) holds back everything the client sent after it: those
 * messages wait here, in arrival order, and the connection stops reading until the answer
 * is written; then they are released one request at a time. Without this, a pipelined
 * request decoded in the same read as a hook could be answered first.
 *
 * <p>A release ends with {@code channelReadComplete}, as a read does: the handlers after
 * this one see the released messages as one read (see {@link PreReadAdmissionHandler}).
 *
 * <p>Event-loop confined: plain fields. Messages still queued when the channel closes are
 * released.
 */
public final class InOrderGate extends ChannelDuplexHandler {

    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /** Between a request's last byte and its answer: later messages wait. */
    private boolean awaitingAnswer;
    private boolean inRequest;
    private boolean answered;

    /**
     * True between requests: every request that came through has its whole body read and its
     * answer written, and nothing is held. Only then may {@link RefusalFastPath} answer the
     * next request itself without reordering answers.
     */
    boolean idle() {
        return !awaitingAnswer && !inRequest && held.isEmpty();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (awaitingAnswer || !held.isEmpty()) {
            if (held.isEmpty()) {
                ctx.channel().config().setAutoRead(false);
            }
            held.add(msg);
            return;
        }
        pass(ctx, msg);
    }

    private void pass(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            inRequest = true;
            answered = false;
        }
        if (msg instanceof LastHttpContent) {
            inRequest = false;
            awaitingAnswer = !answered;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg, promise);
        if (msg instanceof HttpResponse response && response.status().code() != HttpResponseStatus.CONTINUE.code()) {
            answered = true;
            if (!inRequest) {
                awaitingAnswer = false;
                release(ctx);
            }
        }
    }

    /** Lets held messages through until one of them starts waiting for its answer again. */
    private void release(ChannelHandlerContext ctx) {
        boolean passed = false;
        while (!awaitingAnswer && !held.isEmpty()) {
            pass(ctx, held.poll());
            passed = true;
        }
        if (passed) {
            ctx.fireChannelReadComplete(); // what was released is one read's worth, as if it had just arrived
        }
        if (held.isEmpty() && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        while (!held.isEmpty()) {
            ReferenceCountUtil.release(held.poll());
        }
        ctx.fireChannelInactive();
    }
}

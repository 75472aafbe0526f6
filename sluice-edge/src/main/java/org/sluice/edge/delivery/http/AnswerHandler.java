package org.sluice.edge.delivery.http;

import static org.sluice.edge.delivery.http.HttpAttempt.answered;
import static org.sluice.edge.delivery.http.HttpAttempt.brief;
import static org.sluice.edge.delivery.http.HttpAttempt.failure;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.InstantSource;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.RetryAfter;

/** Last in a delivery connection's pipeline: reads the answer of the connection's current attempt. One per connection. */
final class AnswerHandler extends ChannelInboundHandlerAdapter {
    /** The attempt whose answer the connection is reading, or null between attempts. */
    volatile HttpAttempt attempt;
    private final InstantSource wall;

    /** @param wall the wall clock, for reading {@code Retry-After} dates */
    AnswerHandler(InstantSource wall) {
        this.wall = wall;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            HttpAttempt ex = attempt;
            if (ex == null || ex.done.get()) {
                ctx.close(); // an answer nobody asked for: the connection is not trusted again
                return;
            }
            if (msg instanceof HttpResponse r) {
                if (r.decoderResult().isFailure()) {
                    ex.complete(failure(AttemptResult.Failure.PROTOCOL, "unreadable answer"), null);
                    ctx.close();
                    return;
                }
                ex.status = r.status().code();
                ex.keepAlive = HttpUtil.isKeepAlive(r);
                String ra = r.headers().get(HttpHeaderNames.RETRY_AFTER);
                if (ra != null) {
                    ex.retryAfterMillis = RetryAfter.parseMillis(ra, wall);
                }
            }
            if (msg instanceof HttpContent c) {
                if (c.decoderResult().isFailure()) {
                    ex.complete(failure(AttemptResult.Failure.PROTOCOL, "unreadable answer"), null);
                    ctx.close();
                    return;
                }
                ex.bodyBytes += c.content().readableBytes();
                if (ex.status != 0 && ex.bodyBytes > HttpDeliveryClient.MAX_BODY_BYTES) {
                    attempt = null;
                    ex.complete(answered(ex), null); // the status is known; the rest is not read
                    ctx.close();
                    return;
                }
                if (c instanceof LastHttpContent) {
                    attempt = null;
                    if (ex.status >= 100 && ex.status < 200) {
                        ex.complete(answered(ex), null);
                        ctx.close();
                    } else {
                        ex.complete(answered(ex), ex.keepAlive ? ctx.channel() : null);
                        if (!ex.keepAlive) {
                            ctx.close();
                        }
                    }
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        HttpAttempt ex = attempt;
        attempt = null;
        if (ex != null && !ex.retryFresh()) {
            ex.complete(failure(AttemptResult.Failure.RESET, "connection closed before a full answer"), null);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        HttpAttempt ex = attempt;
        attempt = null;
        if (ex != null && !(cause instanceof IOException && ex.retryFresh())) {
            ex.complete(failure(cause instanceof IOException ? AttemptResult.Failure.RESET : AttemptResult.Failure.PROTOCOL,
                    cause instanceof IOException ? "connection reset" : "unreadable answer: " + brief(cause)), null);
        }
        ctx.close();
    }
}

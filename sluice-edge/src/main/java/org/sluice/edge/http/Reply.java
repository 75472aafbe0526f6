package org.sluice.edge.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;

/**
 * Writes a request's one response and decides the connection's fate: kept alive when the
 * client asked for it and no unread body is in the way, closed otherwise. When a refusal
 * is answered before the body is read, the connection closes after the write (unless the
 * refusal chose to drop a small body, see {@link Exchange#dropBody}) and what still
 * arrives of the body is released unread by {@link BodyAggregator}.
 *
 * <p>Called on the channel's event loop only.
 */
final class Reply {

    /** Set while a request has an answer pending in the worker stage; see {@link HookHandler}. */
    static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf("sluice.closing");

    private Reply() {
    }

    static void send(ChannelHandlerContext ctx, Exchange exchange, FullHttpResponse response, Outcome outcome,
            IngestMetrics metrics) {
        metrics.answered(outcome, exchange == null ? 0L : exchange.startNanos);
        boolean close = exchange == null || !exchange.keepAlive || exchange.mustCloseAfterAnswer()
                || Boolean.TRUE.equals(ctx.channel().attr(CLOSING).get());
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.channel().attr(CLOSING).set(Boolean.TRUE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            if (exchange.request.protocolVersion() == HttpVersion.HTTP_1_0) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            ctx.writeAndFlush(response);
        }
    }
}

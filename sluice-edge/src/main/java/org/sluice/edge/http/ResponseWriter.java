package org.sluice.edge.http;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;

/**
 * Writes a request's one response and decides the connection's fate: kept alive when the
 * client asked for it and no unread body is in the way, closed otherwise. When a request
 * is answered before its body is read, the connection closes with a {@link LingeringClose}
 * (the answer, a half-close, the body's in-flight bytes drained unparsed, then the close),
 * unless the body has been received meanwhile ({@code http.refused_body: close_if_incomplete},
 * see {@link PreReadAdmissionHandler}) or {@code http.refused_body: discard} chose to drop a
 * small body in place (see {@link IngestExchange#dropBody}): then what arrives of it is released
 * unread by {@link BodyAggregator} and the connection stays open.
 *
 * <p>Called on the channel's event loop only.
 */
final class ResponseWriter {

    /**
     * Set on a connection that is to close after the response being written: by
     * {@link #send} when it closes the connection, by {@link HookHandler} while the server
     * drains, by {@link ReadDeadlineHandler} on a 408 and by {@link ConnectionsPerAddress} on
     * a refused connection. Once set, every later response on the connection closes it too.
     */
    static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf("sluice.closing");

    /**
     * Set once a response that ends the connection has been written. A request the codec had
     * already decoded from the same read (a pipelined one behind {@code Connection: close})
     * is then not answered: its answer would follow the one that said the connection ends,
     * and on a transport whose close completes after later writes (io_uring) it would reach
     * the client. The refusal fast path stops at the same answer.
     */
    static final AttributeKey<Boolean> ENDED = AttributeKey.valueOf("sluice.ended");

    private ResponseWriter() {
    }

    static void send(ChannelHandlerContext ctx, IngestExchange exchange, FullHttpResponse response, IngestOutcome outcome,
            IngestMetrics metrics) {
        metrics.answered(outcome, exchange == null ? 0L : exchange.startNanos); // handled, answered or not
        if (ended(ctx, response)) {
            return;
        }
        boolean close = exchange == null || !exchange.keepAlive || exchange.mustCloseAfterAnswer()
                || Boolean.TRUE.equals(ctx.channel().attr(CLOSING).get());
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.channel().attr(CLOSING).set(Boolean.TRUE);
            ctx.channel().attr(ENDED).set(Boolean.TRUE);
            ChannelFuture written = ctx.writeAndFlush(response);
            if (exchange != null && exchange.bodyPending()) {
                LingeringClose.start(ctx, written); // the body is in flight: let the answer reach the client
            } else {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        } else {
            if (exchange.request.protocolVersion() == HttpVersion.HTTP_1_0) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            ctx.writeAndFlush(response);
        }
    }

    /**
     * Answers a request whose framing Sluice cannot trust (a header it refused may be one a
     * proxy in front of it took for {@code Content-Length} or {@code Transfer-Encoding}), and
     * ends the connection whatever the client asked: the bytes after the request's head may
     * be a body this server did not see as one, holding a request of someone else's, so none
     * of them is parsed. The close lingers ({@link LingeringClose}) so that the answer
     * reaches the client before those bytes are drained.
     */
    static void sendAndEnd(ChannelHandlerContext ctx, IngestExchange exchange, FullHttpResponse response,
            IngestOutcome outcome, IngestMetrics metrics) {
        metrics.answered(outcome, exchange == null ? 0L : exchange.startNanos); // handled, answered or not
        if (ended(ctx, response)) {
            return;
        }
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.channel().attr(CLOSING).set(Boolean.TRUE);
        ctx.channel().attr(ENDED).set(Boolean.TRUE);
        LingeringClose.start(ctx, ctx.writeAndFlush(response));
    }

    /** True, with the response released, when an earlier answer already ended the connection. */
    private static boolean ended(ChannelHandlerContext ctx, FullHttpResponse response) {
        if (ctx.channel().hasAttr(ENDED) && Boolean.TRUE.equals(ctx.channel().attr(ENDED).get())) {
            response.release();
            return true;
        }
        return false;
    }
}

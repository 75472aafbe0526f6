package org.sluice.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.Arrays;
import org.sluice.core.Clock;

/**
 * Pipeline position: after {@link ContinueHandler}, before {@link HookHandler}; the sink of
 * every body chunk.
 *
 * <p>Concern: reading the body, within its limit. A declared body is copied straight into
 * an array of its declared size; an undeclared (chunked) one grows up to the limit and is
 * refused with {@code 413} the moment it passes, then charged to the source's byte bucket
 * once complete. Each chunk is released as soon as it is copied, so nothing reference
 * counted outlives the event loop's turn. Chunks that belong to no admitted request (the
 * rest of a body that was refused before it was read) are released unread.
 */
final class BodyAggregator extends ChannelInboundHandlerAdapter {

    private static final int INITIAL_CHUNKED_CAPACITY = 4096;

    private final PreReadLimits limits;
    private final Clock clock;
    private final boolean shadow;
    private final IngestMetrics metrics;

    private Exchange current;
    private byte[] body;
    private int length;

    BodyAggregator(PreReadLimits limits, Clock clock, boolean shadow, IngestMetrics metrics) {
        this.limits = limits;
        this.clock = clock;
        this.shadow = shadow;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Exchange exchange) {
            start(ctx, exchange);
            return;
        }
        if (!(msg instanceof HttpContent content)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (current == null) {
                return; // the rest of a refused request's body: dropped unread
            }
            if (content.decoderResult().isFailure()) {
                Exchange refused = current;
                reset();
                Reply.send(ctx, refused, Responses.badRequest(), Outcome.BAD_REQUEST, metrics);
                return;
            }
            ByteBuf chunk = content.content();
            int n = chunk.readableBytes();
            if ((long) length + n > current.bodyLimit) {
                Exchange refused = current;
                reset();
                Reply.send(ctx, refused, Responses.payloadTooLarge(refused.bodyLimit), Outcome.PAYLOAD_TOO_LARGE, metrics);
                return;
            }
            if (length + n > body.length) {
                body = Arrays.copyOf(body, (int) Math.min(current.bodyLimit, Math.max((long) body.length * 2, length + n)));
            }
            chunk.readBytes(body, length, n);
            length += n;
            if (content instanceof LastHttpContent) {
                finish(ctx);
            }
        } finally {
            content.release();
        }
    }

    private void start(ChannelHandlerContext ctx, Exchange exchange) {
        if (exchange.bodyRead) {
            ctx.fireChannelRead(new ReceivedHook(exchange, new byte[0]));
            // the codec still sends an empty LastHttpContent for this request: released above
            return;
        }
        current = exchange;
        length = 0;
        body = new byte[exchange.declaredLength >= 0
                ? (int) exchange.declaredLength
                : (int) Math.min(exchange.bodyLimit, INITIAL_CHUNKED_CAPACITY)];
    }

    private void finish(ChannelHandlerContext ctx) {
        Exchange exchange = current;
        byte[] received = length == body.length ? body : Arrays.copyOf(body, length);
        reset();
        exchange.bodyRead = true;
        if (exchange.declaredLength < 0 && received.length > 0) {
            long wait = limits.chargeSourceBytes(exchange.source.id(), received.length, clock.nanoTime());
            if (wait != 0) {
                metrics.refused(Scope.SOURCE);
                if (!shadow) {
                    Reply.send(ctx, exchange, Responses.rateLimited(Scope.SOURCE.label, wait), Outcome.RATE_LIMITED, metrics);
                    return;
                }
            }
        }
        ctx.fireChannelRead(new ReceivedHook(exchange, received));
    }

    private void reset() {
        current = null;
        body = null;
        length = 0;
    }
}

package org.sluice.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The shape of a pipeline step that looks at a request once its line and headers are in
 * (an {@link IngestExchange}, from {@link RequestSyntaxHandler}) and may answer it before its body
 * is read: it either answers ({@link #answer}, the one response, counted) or passes the
 * exchange on. Everything else (body chunks, other messages) passes through untouched.
 * Runs on the channel's event loop; a subclass without state of its own is
 * {@code @Sharable}.
 */
abstract class ExchangeHandler extends ChannelInboundHandlerAdapter {

    private final IngestMetrics metrics;

    ExchangeHandler(IngestMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof IngestExchange exchange) {
            read(ctx, exchange);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    /** One request: {@link #answer} it, or pass it on with {@code ctx.fireChannelRead(exchange)}. */
    abstract void read(ChannelHandlerContext ctx, IngestExchange exchange);

    /** Answers {@code exchange} with {@code response}, counted as {@code outcome} (see {@link ResponseWriter}). */
    final void answer(ChannelHandlerContext ctx, IngestExchange exchange, FullHttpResponse response, IngestOutcome outcome) {
        ResponseWriter.send(ctx, exchange, response, outcome, metrics);
    }
}

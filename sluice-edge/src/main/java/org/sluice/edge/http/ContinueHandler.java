package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Pipeline position: after {@link BodyRoomHandler}, before {@link BodyAggregator}: the last
 * moment before the body is read.
 *
 * <p>Concern: {@code Expect: 100-continue}. Every check that can refuse before the body has
 * run by now, so a client that waits for {@code 100 Continue} has been answered already if
 * it was going to be refused. Any other expectation is 417.
 */
@ChannelHandler.Sharable
public final class ContinueHandler extends ChannelInboundHandlerAdapter {

    private final IngestMetrics metrics;

    public ContinueHandler(IngestMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Exchange exchange)) {
            ctx.fireChannelRead(msg);
            return;
        }
        String expect = exchange.request.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null) {
            if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
                ResponseWriter.send(ctx, exchange, Responses.expectationFailed(), Outcome.BAD_REQUEST, metrics);
                return;
            }
            if (exchange.bodyPending()) {
                FullHttpResponse proceed = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE);
                ctx.writeAndFlush(proceed);
            }
            exchange.request.headers().remove(HttpHeaderNames.EXPECT);
        }
        ctx.fireChannelRead(exchange);
    }
}

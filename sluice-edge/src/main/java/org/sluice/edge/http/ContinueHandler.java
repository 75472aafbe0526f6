package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
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
public final class ContinueHandler extends ExchangeHandler {

    public ContinueHandler(IngestMetrics metrics) {
        super(metrics);
    }

    @Override
    void read(ChannelHandlerContext ctx, IngestExchange exchange) {
        String expect = exchange.request.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null) {
            if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
                answer(ctx, exchange, Responses.expectationFailed(), IngestOutcome.BAD_REQUEST);
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

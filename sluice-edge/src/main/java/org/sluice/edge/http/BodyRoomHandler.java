package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Pipeline position: after {@link PreReadAdmissionHandler}, before {@link ContinueHandler}; no
 * byte of the body has been read and no {@code 100 Continue} sent.
 *
 * <p>Concern: the node's memory for bodies ({@code http.max_inflight_body_bytes}). A request
 * with a body whose first buffer would not fit under the bound now is answered
 * {@code 503 overload} before its body is read (the connection closes, see {@link ResponseWriter}).
 * This is a check: {@link BodyAggregator} holds the buffer when it allocates it, and answers
 * the same {@code 503} in the rare case another event loop took the room in between.
 */
@ChannelHandler.Sharable
public final class BodyRoomHandler extends ChannelInboundHandlerAdapter {

    private final InflightBodies bodies;
    private final IngestMetrics metrics;

    public BodyRoomHandler(InflightBodies bodies, IngestMetrics metrics) {
        this.bodies = bodies;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Exchange exchange && exchange.bodyPending()
                && !bodies.hasRoom(BodyAggregator.initialCapacity(exchange.declaredLength, exchange.bodyLimit))) {
            ResponseWriter.send(ctx, exchange, Responses.overload(), Outcome.OVERLOAD, metrics);
            return;
        }
        ctx.fireChannelRead(msg);
    }
}

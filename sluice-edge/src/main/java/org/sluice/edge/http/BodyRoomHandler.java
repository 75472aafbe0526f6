package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;

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
public final class BodyRoomHandler extends ExchangeHandler {

    private final InflightBodies bodies;

    public BodyRoomHandler(InflightBodies bodies, IngestMetrics metrics) {
        super(metrics);
        this.bodies = bodies;
    }

    @Override
    void read(ChannelHandlerContext ctx, IngestExchange exchange) {
        if (exchange.bodyPending()
                && !bodies.hasRoom(BodyAggregator.initialCapacity(exchange.declaredLength, exchange.bodyLimit))) {
            answer(ctx, exchange, Responses.overload(), IngestOutcome.OVERLOAD);
            return;
        }
        ctx.fireChannelRead(exchange);
    }
}

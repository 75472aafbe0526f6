package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.function.ToLongFunction;

/**
 * Pipeline position: after {@link ClientAddressHandler}, before {@link PreReadAdmissionHandler}:
 * a declared length is checked before any bucket is charged for the request.
 *
 * <p>Concern: step 4, the body's size limit: the tenant's {@code max_body_bytes}, else
 * {@code http.max_body_bytes}. A declared length over it is answered {@code 413
 * payload_too_large} before the body is read (and the connection closes); an undeclared
 * one is counted by {@link BodyAggregator} as it arrives.
 */
@ChannelHandler.Sharable
public final class BodySizeHandler extends ChannelInboundHandlerAdapter {

    private final ToLongFunction<String> bodyLimitForTenant;
    private final IngestMetrics metrics;

    public BodySizeHandler(ToLongFunction<String> bodyLimitForTenant, IngestMetrics metrics) {
        this.bodyLimitForTenant = bodyLimitForTenant;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Exchange exchange) || exchange.bodyRead) {
            ctx.fireChannelRead(msg); // a request without a body has no limit to look up
            return;
        }
        exchange.bodyLimit = bodyLimitForTenant.applyAsLong(exchange.tenant);
        if (exchange.declaredLength > exchange.bodyLimit) {
            ResponseWriter.send(ctx, exchange, Responses.payloadTooLarge(exchange.bodyLimit), Outcome.PAYLOAD_TOO_LARGE, metrics);
            return;
        }
        ctx.fireChannelRead(exchange);
    }
}

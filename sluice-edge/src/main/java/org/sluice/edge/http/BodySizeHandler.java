package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
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
public final class BodySizeHandler extends ExchangeHandler {

    private final ToLongFunction<String> bodyLimitForTenant;

    public BodySizeHandler(ToLongFunction<String> bodyLimitForTenant, IngestMetrics metrics) {
        super(metrics);
        this.bodyLimitForTenant = bodyLimitForTenant;
    }

    @Override
    void read(ChannelHandlerContext ctx, IngestExchange exchange) {
        if (exchange.bodyRead) {
            ctx.fireChannelRead(exchange); // a request without a body has no limit to look up
            return;
        }
        exchange.bodyLimit = bodyLimitForTenant.applyAsLong(exchange.tenant);
        if (exchange.declaredLength > exchange.bodyLimit) {
            answer(ctx, exchange, Responses.payloadTooLarge(exchange.bodyLimit), IngestOutcome.PAYLOAD_TOO_LARGE);
            return;
        }
        ctx.fireChannelRead(exchange);
    }
}

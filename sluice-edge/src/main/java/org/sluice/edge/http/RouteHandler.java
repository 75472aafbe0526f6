package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.util.function.Supplier;

/**
 * Pipeline position: after {@link RequestSyntaxHandler}, before {@link ClientAddressHandler}.
 *
 * <p>Concern: step 1 of the contract, route and source. Answers {@code GET /healthz},
 * {@code GET /readyz} (200 while the node is ready, else 503 with the reason), unknown sources (404
 * unknown_source) and every other method or path (404 not_found); passes an ingest
 * request on with its source and tenant set.
 */
@ChannelHandler.Sharable
public final class RouteHandler extends ExchangeHandler {

    private final Router router;
    private final Supplier<String> notReadyReason;

    public RouteHandler(Router router, Supplier<String> notReadyReason, IngestMetrics metrics) {
        super(metrics);
        this.router = router;
        this.notReadyReason = notReadyReason;
    }

    @Override
    void read(ChannelHandlerContext ctx, IngestExchange exchange) {
        Router.Route route = router.route(exchange.request.method().name(), exchange.request.uri());
        switch (route.kind()) {
            case HEALTH -> answer(ctx, exchange, Responses.healthy(), IngestOutcome.PROBE);
            case READY -> answer(ctx, exchange, Responses.ready(notReadyReason.get()), IngestOutcome.PROBE);
            case UNKNOWN_SOURCE -> answer(ctx, exchange, Responses.unknownSource(), IngestOutcome.NOT_FOUND);
            case NOT_FOUND -> answer(ctx, exchange, Responses.notFound(), IngestOutcome.NOT_FOUND);
            case INGEST -> {
                exchange.source = route.source();
                exchange.tenant = route.tenant();
                ctx.fireChannelRead(exchange);
            }
        }
    }
}

package org.sluice.edge.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
public final class RouteHandler extends ChannelInboundHandlerAdapter {

    private final Router router;
    private final Supplier<String> notReadyReason;
    private final IngestMetrics metrics;

    public RouteHandler(Router router, Supplier<String> notReadyReason, IngestMetrics metrics) {
        this.router = router;
        this.notReadyReason = notReadyReason;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Exchange exchange)) {
            ctx.fireChannelRead(msg);
            return;
        }
        Router.Route route = router.route(exchange.request.method().name(), exchange.request.uri());
        switch (route.kind()) {
            case HEALTH -> ResponseWriter.send(ctx, exchange, Responses.healthy(), Outcome.PROBE, metrics);
            case READY -> ResponseWriter.send(ctx, exchange, Responses.ready(notReadyReason.get()), Outcome.PROBE, metrics);
            case UNKNOWN_SOURCE -> ResponseWriter.send(ctx, exchange, Responses.unknownSource(), Outcome.NOT_FOUND, metrics);
            case NOT_FOUND -> ResponseWriter.send(ctx, exchange, Responses.notFound(), Outcome.NOT_FOUND, metrics);
            case INGEST -> {
                exchange.source = route.source();
                exchange.tenant = route.tenant();
                ctx.fireChannelRead(exchange);
            }
        }
    }
}

package org.sluice.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.sluice.core.Clock;

/**
 * Pipeline position: after {@link ClientAddressHandler}, before {@link BodySizeHandler}; no
 * byte of the body has been read yet, and no {@code 100 Continue} has been sent.
 *
 * <p>Concern: step 2, the node's CPU protection, in order: the client address, then the
 * node, then the source's bytes per second charged with the declared {@code Content-Length}
 * (an undeclared body is charged by {@link BodyAggregator} once read). The first refusal
 * answers {@code 429 rate_limited} with its scope. An address refused here never touches the
 * node's bucket. In shadow mode a refusal is counted and the request goes on.
 *
 * <p>What happens to the refused request's body: none of it is read into the server.
 * A body declared with {@code Content-Length} of at most {@link #DISCARD_LIMIT} bytes (and
 * no {@code Expect}) is dropped as it arrives, never buffered or looked at, and the
 * connection stays open; any other body (bigger, chunked, or behind {@code Expect:
 * 100-continue}) makes the server close the connection after the 429. Closing under a flood
 * of small hooks would only make every refused request cost a new connection.
 */
final class PreReadAdmissionHandler extends ChannelInboundHandlerAdapter {

    /** The biggest declared body a pre-read refusal drops in place rather than closing: 64 KiB. */
    static final long DISCARD_LIMIT = 64 * 1024;

    private final PreReadLimits limits;
    private final Clock clock;
    private final boolean shadow;
    private final IngestMetrics metrics;

    PreReadAdmissionHandler(PreReadLimits limits, Clock clock, boolean shadow, IngestMetrics metrics) {
        this.limits = limits;
        this.clock = clock;
        this.shadow = shadow;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Exchange exchange)) {
            ctx.fireChannelRead(msg);
            return;
        }
        long now = clock.nanoTime();
        if (refused(ctx, exchange, Scope.IP, limits.chargeAddress(exchange.client, now))
                || refused(ctx, exchange, Scope.NODE, limits.chargeNode(now))
                || (exchange.declaredLength > 0 && refused(ctx, exchange, Scope.SOURCE,
                        limits.chargeSourceBytes(exchange.source.id(), exchange.declaredLength, now)))) {
            return;
        }
        ctx.fireChannelRead(exchange);
    }

    private boolean refused(ChannelHandlerContext ctx, Exchange exchange, Scope scope, long waitNanos) {
        if (waitNanos == 0) {
            return false;
        }
        metrics.refused(scope);
        if (shadow) {
            return false;
        }
        exchange.dropBody = !exchange.chunked && exchange.declaredLength <= DISCARD_LIMIT
                && !exchange.request.headers().contains(io.netty.handler.codec.http.HttpHeaderNames.EXPECT);
        Reply.send(ctx, exchange, Responses.rateLimited(scope.label, waitNanos), Outcome.RATE_LIMITED, metrics);
        return true;
    }
}

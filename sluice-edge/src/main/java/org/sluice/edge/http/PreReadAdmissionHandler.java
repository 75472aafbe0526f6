package org.sluice.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import org.sluice.core.Clock;
import org.sluice.edge.config.RefusedBody;

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
 * <p>What happens to the refused request's body ({@code http.refused_body}): none of it is
 * parsed, buffered, verified or charged. By default ({@code close}, the contract) the 429
 * carries {@code Connection: close} and the connection ends in a {@link LingeringClose}: the
 * codec is taken out, the answer flushed, the output shut down, the body's in-flight bytes
 * drained unread, then the close. With {@code discard}, a body declared with
 * {@code Content-Length} of at most {@link #DISCARD_LIMIT} bytes and no {@code Expect} is
 * instead dropped as it arrives and the connection stays open (under a flood of small
 * hooks, closing makes every refused request cost the server a new connection); any other
 * body (bigger, chunked, or behind {@code Expect: 100-continue}) still closes. A refused
 * request without a body keeps its connection alive whenever the client asked for it.
 */
final class PreReadAdmissionHandler extends ChannelInboundHandlerAdapter {

    /** Under {@code discard}, the biggest declared body a refusal drops in place rather than closing: 64 KiB. */
    static final long DISCARD_LIMIT = 64 * 1024;

    private final PreReadLimits limits;
    private final Clock clock;
    private final boolean shadow;
    private final boolean discardSmallBodies;
    private final IngestMetrics metrics;

    PreReadAdmissionHandler(PreReadLimits limits, Clock clock, boolean shadow, RefusedBody refusedBody,
            IngestMetrics metrics) {
        this.limits = limits;
        this.clock = clock;
        this.shadow = shadow;
        this.discardSmallBodies = refusedBody == RefusedBody.DISCARD;
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
        exchange.dropBody = discardSmallBodies && !exchange.chunked && exchange.declaredLength <= DISCARD_LIMIT
                && !exchange.request.headers().contains(HttpHeaderNames.EXPECT);
        Reply.send(ctx, exchange, Responses.rateLimited(scope.label, waitNanos), Outcome.RATE_LIMITED, metrics);
        return true;
    }
}

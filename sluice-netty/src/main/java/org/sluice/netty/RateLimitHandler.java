package org.sluice.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Probe;

/**
 * Admission for any Netty HTTP server: one permit per request charged to a {@link
 * KeyedLimit} (a {@code KeyedLimiter} in memory or a shared-memory limiter; not a Redis
 * one, whose call blocks for a round trip and must not run on an event loop) under the
 * key a {@link RequestKey} reads from the request's head.
 *
 * <p>Place it right after the {@code HttpServerCodec} and before any {@code
 * HttpObjectAggregator} or {@code HttpServerExpectContinueHandler}: it decides on the
 * {@link HttpRequest} alone, before the body is read. An admitted request and its contents
 * pass on untouched. A refused one is answered at once {@code 429 Too Many Requests} with
 * {@code Retry-After}, {@code RateLimit-Policy} and {@code RateLimit}; its contents are
 * released as they arrive and never reach the next handler. A refused request that
 * expects {@code 100 Continue} gets no {@code 100} and its connection is closed after the
 * 429 (its client sends no body); any other refused request keeps its connection when it
 * asked to keep it, else the connection closes after its last content. The 429 is
 * written when the request is read: a client that pipelines requests should not expect it
 * behind the answers of admitted requests still in progress on the same connection.
 *
 * <p>Sharable: its only per-connection state is a channel attribute, and it takes no lock
 * beyond the limiter's own short critical section.
 */
@ChannelHandler.Sharable
public final class RateLimitHandler extends ChannelInboundHandlerAdapter {

    private static final AsciiString RATE_LIMIT = AsciiString.cached("ratelimit");
    private static final AsciiString RATE_LIMIT_POLICY = AsciiString.cached("ratelimit-policy");

    /** What to do with the contents of a refused request until its last one. */
    private enum Discard { KEEP_OPEN, THEN_CLOSE }

    private static final AttributeKey<Discard> DISCARDING = AttributeKey.valueOf(RateLimitHandler.class, "discarding");

    private final KeyedLimit<String> limit;
    private final RequestKey key;
    private final RateLimitFields fields;

    private RateLimitHandler(Builder builder) {
        this.limit = builder.limit;
        this.key = builder.key;
        this.fields = new RateLimitFields(builder.policyName, builder.limit.bandwidths());
    }

    /** A handler over {@code limit}; by default keyed by the peer's address under the policy name {@code "default"}. */
    public static Builder builder(KeyedLimit<String> limit) {
        return new Builder(limit);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            Probe probe = new Probe();
            if (limit.tryAcquire(key.of(ctx.channel(), request), 1, probe)) {
                ctx.fireChannelRead(msg);
            } else {
                refuse(ctx, request, probe);
            }
            return;
        }
        Discard discard = ctx.channel().attr(DISCARDING).get();
        if (discard != null && msg instanceof HttpContent) {
            ReferenceCountUtil.release(msg);
            if (msg instanceof LastHttpContent) {
                finish(ctx, discard);
            }
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void refuse(ChannelHandlerContext ctx, HttpRequest request, Probe probe) {
        boolean expectsContinue = HttpUtil.is100ContinueExpected(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !expectsContinue;
        boolean whole = request instanceof LastHttpContent; // aggregated before us: nothing more will come
        ReferenceCountUtil.release(request);
        FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(),
                HttpResponseStatus.TOO_MANY_REQUESTS, Unpooled.EMPTY_BUFFER);
        response.headers()
                .set(HttpHeaderNames.RETRY_AFTER, RateLimitFields.retryAfterSeconds(probe))
                .set(RATE_LIMIT_POLICY, fields.policy())
                .set(RATE_LIMIT, fields.current(probe))
                .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        HttpUtil.setKeepAlive(response, keepAlive);
        if (expectsContinue) {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        Discard discard = keepAlive ? Discard.KEEP_OPEN : Discard.THEN_CLOSE;
        if (whole) {
            finish(ctx, discard);
        } else {
            ctx.channel().attr(DISCARDING).set(discard);
        }
    }

    private static void finish(ChannelHandlerContext ctx, Discard discard) {
        ctx.channel().attr(DISCARDING).set(null);
        if (discard == Discard.THEN_CLOSE) {
            ctx.channel().close().addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }
    }

    /** Builds a {@link RateLimitHandler}. */
    public static final class Builder {

        private final KeyedLimit<String> limit;
        private RequestKey key = RequestKey.remoteAddress();
        private String policyName = "default";

        private Builder(KeyedLimit<String> limit) {
            this.limit = Objects.requireNonNull(limit, "limit");
        }

        /** What each request is counted against (default: the peer's address). */
        public Builder key(RequestKey key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        /** The policy's name in the {@code RateLimit} fields: a token of letters, digits, {@code - _ .}. */
        public Builder policyName(String name) {
            this.policyName = RateLimitFields.checkName(name);
            return this;
        }

        public RateLimitHandler build() {
            return new RateLimitHandler(this);
        }
    }
}

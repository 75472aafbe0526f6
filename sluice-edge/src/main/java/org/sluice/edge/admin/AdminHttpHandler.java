package org.sluice.edge.admin;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * The admin listener's bridge to {@link AdminApi}. Sits after the codec, keep-alive handler
 * and {@link #aggregator()}, before the {@code /metrics} handler:
 * <ul>
 *   <li>first, a request whose {@code Host} is not allowed ({@link AdminHosts}:
 *       {@code admin.allowed_hosts}) is answered {@code 421 {"error":"host_not_allowed"}}
 *       and its connection closed, whatever its route;</li>
 *   <li>{@code /v1} and below: the request is copied into an {@link AdminRequest}, released,
 *       and {@link AdminApi#handle} runs on {@code workers}, the admin executor (a PUT waits
 *       for an fsync; the event loop never blocks); the answer is written back from there.
 *       When the executor's queue is full: {@code 503 {"error":"overload"}} (while it
 *       shuts down: {@code shutting_down}), and the connection closes;</li>
 *   <li>{@code /docs}, {@code /docs/...} and {@code /openapi/...}: the API reference and the
 *       OpenAPI descriptions, answered here from memory without the token ({@link AdminStatic});</li>
 *   <li>{@code /console} and below: the web console's static files, from memory, without
 *       the token ({@link ConsoleAssets});</li>
 *   <li>{@code GET /metrics} without the token when {@code admin.metrics_require_token} is
 *       true: {@code 401 {"error":"unauthorized"}} here;</li>
 *   <li>anything else is passed on untouched.</li>
 * </ul>
 * Holds no per-connection state, so one instance serves every connection.
 */
@ChannelHandler.Sharable
public final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final byte[] UNAUTHORIZED = AdminJson.error("unauthorized");
    private static final byte[] HOST_NOT_ALLOWED = AdminJson.error("host_not_allowed");

    private final AdminApi api;
    private final Executor workers;
    private final boolean metricsRequireToken;
    private final AdminHosts hosts;
    private final AdminStatic statics = AdminStatic.shared();

    /**
     * @param listenHost   the host of {@code admin.listen}, always an allowed {@code Host}
     * @param allowedHosts {@code admin.allowed_hosts} (see {@link AdminHosts})
     */
    public AdminHttpHandler(AdminApi api, Executor workers, boolean metricsRequireToken, String listenHost,
                            List<String> allowedHosts) {
        super(false);
        this.api = Objects.requireNonNull(api, "api");
        this.workers = Objects.requireNonNull(workers, "workers");
        this.metricsRequireToken = metricsRequireToken;
        this.hosts = new AdminHosts(listenHost, allowedHosts);
    }

    /**
     * The aggregator to put in front of this handler: bodies up to {@link AdminApi#MAX_BODY_BYTES};
     * a larger one is answered {@code 413 {"error":"payload_too_large","limit":65536}} as soon as
     * its declared length (or the bytes read) pass the limit.
     *
     * <p>A keep-alive request whose body is still arriving keeps its connection: the
     * aggregator discards the rest of the body, so the client, which is still writing, is
     * not reset before it reads the 413 (closing at once made the kernel answer the unread
     * body with a reset that could destroy the response). Anything else is answered and
     * closed.
     */
    public static HttpObjectAggregator aggregator() {
        return new HttpObjectAggregator(AdminApi.MAX_BODY_BYTES) {
            @Override
            protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
                AdminResponse tooLarge = AdminResponse.json(413, AdminJson.tooLarge(AdminApi.MAX_BODY_BYTES));
                boolean discardRest = !(oversized instanceof FullHttpMessage) && HttpUtil.isKeepAlive(oversized);
                ctx.writeAndFlush(toNetty(tooLarge, discardRest)).addListener(discardRest
                        ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
            }
        };
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String target = request.uri();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        if (!hosts.allows(request.headers().get(HttpHeaderNames.HOST))) {
            request.release();
            respond(ctx, AdminResponse.json(421, HOST_NOT_ALLOWED), false);
            return;
        }
        if (AdminApi.owns(path)) {
            AdminRequest copy;
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            try {
                copy = toAdminRequest(request, path, q < 0 ? "" : target.substring(q + 1));
            } finally {
                request.release();
            }
            try {
                workers.execute(() -> respond(ctx, api.handle(copy), keepAlive));
            } catch (RejectedExecutionException rejected) {
                boolean stopping = workers instanceof ExecutorService pool && pool.isShutdown();
                respond(ctx, AdminResponse.json(503, AdminJson.error(stopping ? "shutting_down" : "overload")), false);
            }
            return;
        }
        if (AdminStatic.owns(path) || ConsoleAssets.owns(path)) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            String method = request.method().name();
            request.release();
            respond(ctx, ConsoleAssets.owns(path) ? ConsoleAssets.answer(method, path) : statics.answer(method, path),
                    keepAlive);
            return;
        }
        if (metricsRequireToken && path.equals("/metrics")) {
            boolean allowed;
            try {
                allowed = api.authorized(toAdminRequest(request, path, ""));
            } catch (RuntimeException e) {
                request.release();
                throw e;
            }
            if (!allowed) {
                boolean keepAlive = HttpUtil.isKeepAlive(request);
                request.release();
                respond(ctx, AdminResponse.json(401, UNAUTHORIZED).withHeader("WWW-Authenticate", AdminApi.CHALLENGE),
                        keepAlive);
                return;
            }
        }
        ctx.fireChannelRead(request);
    }

    private static AdminRequest toAdminRequest(FullHttpRequest request, String path, String query) {
        Map<String, String> headers = new HashMap<>();
        for (Map.Entry<String, String> h : request.headers()) {
            headers.putIfAbsent(h.getKey(), h.getValue());
        }
        return new AdminRequest(request.method().name(), path, query, headers,
                ByteBufUtil.getBytes(request.content()));
    }

    private static void respond(ChannelHandlerContext ctx, AdminResponse response, boolean keepAlive) {
        FullHttpResponse out = toNetty(response, keepAlive);
        if (keepAlive) {
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else {
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static FullHttpResponse toNetty(AdminResponse response, boolean keepAlive) {
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()), Unpooled.wrappedBuffer(response.body()));
        response.headers().forEach((name, value) -> out.headers().set(name, value));
        out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
        HttpUtil.setKeepAlive(out, keepAlive);
        return out;
    }
}

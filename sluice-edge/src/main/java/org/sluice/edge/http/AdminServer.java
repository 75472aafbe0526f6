package org.sluice.edge.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import org.sluice.edge.admin.AdminHttpHandler;

/**
 * The admin listener ({@code admin.listen}, loopback by default): {@code GET /metrics} (the
 * Prometheus text format) and, through {@link AdminHttpHandler}, the {@code /v1} admin API
 * (see docs/admin-api.md). Rendering runs on a worker, not the admin event loop. Other
 * paths are 404.
 */
final class AdminServer implements AutoCloseable {

    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

    private final Channel channel;

    private AdminServer(Channel channel) {
        this.channel = channel;
    }

    static AdminServer start(InetSocketAddress listen, EventLoopGroup group, PrometheusMeterRegistry registry,
            Executor workers, AdminHttpHandler api) throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(Transport.serverChannel())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                                AdminHttpHandler.aggregator(), api, new MetricsHandler(registry, workers));
                    }
                });
        Transport.configure(bootstrap, false);
        return new AdminServer(bootstrap.bind(listen).sync().channel());
    }

    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    /** Answers {@code GET /metrics}; everything else 404. */
    private static final class MetricsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

        private final PrometheusMeterRegistry registry;
        private final Executor workers;

        MetricsHandler(PrometheusMeterRegistry registry, Executor workers) {
            this.registry = registry;
            this.workers = workers;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            String path = request.uri();
            int q = path.indexOf('?');
            path = q < 0 ? path : path.substring(0, q);
            if (!request.method().equals(HttpMethod.GET) || !path.equals("/metrics")) {
                FullHttpResponse notFound = Responses.notFound();
                ctx.writeAndFlush(notFound);
                return;
            }
            workers.execute(() -> {
                byte[] text = registry.scrape().getBytes(StandardCharsets.UTF_8);
                FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(text));
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, TEXT_FORMAT)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, text.length);
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            });
        }
    }
}

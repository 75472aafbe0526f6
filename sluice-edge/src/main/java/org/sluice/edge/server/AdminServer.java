package org.sluice.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sluice.edge.netio.IoTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.admin.AdminHttpHandler;
import org.sluice.edge.config.AdminConfig;
import org.sluice.edge.http.Responses;
import org.sluice.edge.log.Warnings;

/**
 * The admin listener ({@code admin.listen}, loopback by default): {@code GET /metrics} (the
 * Prometheus text format) and, through {@link AdminHttpHandler}, the {@code /v1} admin API
 * (see docs/admin-api.md). Other paths are 404. Each connection's pipeline, in order:
 * <pre>
 *   ConnectionCap          admin.max_connections: one more is closed when accepted
 *   AdminDeadlines.bytes   the first byte of a request starts admin.read_timeout_ms
 *   [SslHandler]           admin.tls, JDK provider
 *   HttpServerCodec
 *   AdminDeadlines.messages  a whole request stops the deadline; a response starts admin.idle_timeout_ms
 *   AuthFailures           every 401 written: sluice_admin_auth_failures_total, a rate-limited warning
 *   HttpServerKeepAliveHandler, aggregator, AdminHttpHandler (/v1), MetricsHandler (/metrics)
 * </pre>
 * {@code /v1} and the {@code /metrics} rendering run on the admin executor
 * ({@code admin.workers} threads), never on the event loop and never on the ingest
 * workers, so an operator's request does not wait behind a flood of hooks.
 */
final class AdminServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

    private final Channel channel;

    private AdminServer(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds the admin listener.
     *
     * @param ssl     the admin.tls context, or null for plain HTTP
     * @param group   the admin event loop, of {@code transport}
     * @param workers the admin executor
     */
    static AdminServer start(AdminConfig config, SslContext ssl, IoTransport transport, EventLoopGroup group,
            PrometheusMeterRegistry registry,
            Executor workers, AdminHttpHandler api) throws InterruptedException {
        ConnectionCap cap = new ConnectionCap(config.maxConnections(), Counter.builder("sluice.admin.connections.refused")
                .description("Admin connections closed on accept because admin.max_connections were open").register(registry));
        AuthFailures authFailures = new AuthFailures(Counter.builder("sluice.admin.auth.failures")
                .description("Admin requests answered 401: no bearer token, or a wrong one").register(registry));
        MetricsHandler metrics = new MetricsHandler(registry, workers);
        ServerBootstrap bootstrap = new ServerBootstrap().group(group)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        AdminDeadlines deadlines = new AdminDeadlines(config.readTimeoutMs(), config.idleTimeoutMs());
                        ChannelPipeline p = ch.pipeline();
                        p.addLast("cap", cap);
                        p.addLast("deadline-bytes", deadlines.bytes());
                        if (ssl != null) {
                            p.addLast("tls", ssl.newHandler(ch.alloc()));
                        }
                        p.addLast("codec", new HttpServerCodec());
                        p.addLast("deadline", deadlines.messages());
                        p.addLast("auth-failures", authFailures);
                        p.addLast(new HttpServerKeepAliveHandler(), AdminHttpHandler.aggregator(), api, metrics);
                    }
                });
        ListenerOptions.configure(bootstrap, transport, false);
        AdminServer server = new AdminServer(bootstrap.bind(config.listen().socketAddress()).sync().channel());
        InetSocketAddress bound = server.address();
        if (ssl == null && !bound.getAddress().isLoopbackAddress()) {
            LOG.warn("admin.listen {} is not a loopback address and admin.tls is not set: the admin bearer token and"
                    + " every admin answer cross the network in clear; set admin.tls or listen on loopback",
                    config.listen());
        }
        return server;
    }

    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    /** Closes a connection accepted while {@code admin.max_connections} are open. Shared by every connection. */
    @ChannelHandler.Sharable
    private static final class ConnectionCap extends ChannelInboundHandlerAdapter {

        private final int max;
        private final Counter refused;
        private final AtomicInteger open = new AtomicInteger();

        ConnectionCap(int max, Counter refused) {
            this.max = max;
            this.refused = refused;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (open.incrementAndGet() > max) {
                open.decrementAndGet();
                refused.increment();
                ctx.close();
                return;
            }
            ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
            ctx.fireChannelActive();
        }
    }

    /** Counts every 401 the listener writes and logs it, at most once per 10 s. Shared by every connection. */
    @ChannelHandler.Sharable
    private static final class AuthFailures extends ChannelOutboundHandlerAdapter {

        private final Counter failures;
        private final Warnings warnings = new Warnings(LOG, TimeUnit.SECONDS.toNanos(10));

        AuthFailures(Counter failures) {
            this.failures = failures;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response && response.status().code() == 401) {
                failures.increment();
                warnings.warn("admin: refused a request from " + ctx.channel().remoteAddress()
                        + " without the right bearer token (401)", null);
            }
            ctx.write(msg, promise);
        }
    }

    /** Answers {@code GET /metrics}; everything else 404. Shared by every connection. */
    @ChannelHandler.Sharable
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
            try {
                workers.execute(() -> {
                    byte[] text = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                            HttpResponseStatus.OK, Unpooled.wrappedBuffer(text));
                    response.headers().set(HttpHeaderNames.CONTENT_TYPE, TEXT_FORMAT)
                            .setInt(HttpHeaderNames.CONTENT_LENGTH, text.length);
                    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
                });
            } catch (RejectedExecutionException full) {
                ctx.writeAndFlush(Responses.overload()).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}

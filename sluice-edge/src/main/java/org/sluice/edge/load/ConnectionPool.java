package org.sluice.edge.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.sluice.edge.threads.Threads;

/**
 * A fixed pool of keep-alive HTTP/1.1 connections and the queue of requests waiting for one.
 *
 * <p>Threads: everything here runs on one Netty event loop, which owns the idle connections,
 * the pending queue and each connection's request in flight, so none of it is locked. The
 * scheduler hands requests over with {@link #submit}; only the pending count it checks
 * against the bound is shared (an atomic). One connection carries one request at a time
 * (no pipelining): a request waits in the queue until a connection is free, and its latency
 * still counts from its intended send time.
 *
 * <p>A connection the server closes (or that fails) is replaced; its request in flight, if
 * any, counts as an error. An answer with {@code Connection: close} is counted, then the
 * connection is replaced.
 */
final class ConnectionPool implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LoadOptions options;
    private final LoadStats stats;
    private final HookFactory factory;
    private final int maxPending;
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final String hostHeader;
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean closing = new AtomicBoolean();

    // owned by the event loop
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<HookFactory.Hook> pending = new ArrayDeque<>();
    private final List<Channel> all = new ArrayList<>();
    private boolean open = true;

    ConnectionPool(LoadOptions options, LoadStats stats, HookFactory factory, int maxPending) {
        this.options = options;
        this.stats = stats;
        this.factory = factory;
        this.maxPending = maxPending;
        this.group = new NioEventLoopGroup(1, Threads.named("sluice-load-io"));
        this.loop = group.next();
        SslContext ssl = sslContext(options);
        String host = options.url().getHost();
        int port = options.port();
        this.hostHeader = options.url().getPort() == -1 ? host : host + ":" + port;
        this.bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .remoteAddress(host, port)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc(), host, port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20), new Answers());
                    }
                });
    }

    /**
     * Opens every connection, waiting up to {@code timeoutMillis} in all.
     *
     * @return how many opened
     */
    int connect(long timeoutMillis) throws InterruptedException {
        List<ChannelFuture> futures = new ArrayList<>();
        for (int i = 0; i < options.connections(); i++) {
            futures.add(bootstrap.connect());
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        int opened = 0;
        for (ChannelFuture f : futures) {
            f.await(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (f.isSuccess()) {
                opened++;
                Channel ch = f.channel();
                loop.execute(() -> adopt(ch));
            } else {
                stats.connectErrors.incrementAndGet();
                f.channel().close();
            }
        }
        return opened;
    }

    /** Queues requests that are due; a request past the pending bound is not sent. */
    void submit(List<HookFactory.Hook> due) {
        List<HookFactory.Hook> taken = new ArrayList<>(due.size());
        for (HookFactory.Hook h : due) {
            if (pendingCount.incrementAndGet() > maxPending) {
                pendingCount.decrementAndGet();
                stats.notSent.incrementAndGet();
            } else {
                taken.add(h);
            }
        }
        if (!taken.isEmpty()) {
            loop.execute(() -> {
                pending.addAll(taken);
                dispatch();
            });
        }
    }

    /** Requests queued or on the wire. */
    boolean idleNow() {
        return pendingCount.get() == 0 && inFlight.get() == 0;
    }

    /** Drops what is still queued (counted as not sent) and closes every connection; once. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            loop.submit(() -> {
                open = false;
                stats.notSent.addAndGet(pending.size());
                pendingCount.addAndGet(-pending.size());
                pending.clear();
                for (Channel ch : List.copyOf(all)) {
                    ch.close();
                }
            }).sync();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    // ---------------------------------------------------------------- on the event loop

    private void adopt(Channel ch) {
        if (!open) {
            ch.close();
            return;
        }
        all.add(ch);
        ch.closeFuture().addListener(f -> closed(ch));
        if (ch.isActive()) {
            idle.add(ch);
            dispatch();
        }
    }

    private void dispatch() {
        while (!pending.isEmpty() && !idle.isEmpty()) {
            Channel ch = idle.poll();
            if (!ch.isActive()) {
                continue;
            }
            HookFactory.Hook hook = pending.poll();
            send(ch, hook);
            pendingCount.decrementAndGet(); // after send counted it in flight: idleNow() never sees it in neither
        }
    }

    private void send(Channel ch, HookFactory.Hook hook) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                hook.event().path(), Unpooled.wrappedBuffer(hook.event().body()));
        request.headers().set(HttpHeaderNames.HOST, hostHeader);
        request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, hook.event().body().length);
        hook.headers().forEach((k, v) -> request.headers().set(k, v));
        ch.pipeline().get(Answers.class).inFlight = hook;
        inFlight.incrementAndGet();
        stats.sent.incrementAndGet();
        switch (hook.kind()) {
            case DUPLICATE -> stats.duplicatesSent.incrementAndGet();
            case BAD_SIGNATURE -> stats.badSignaturesSent.incrementAndGet();
            default -> { }
        }
        ch.writeAndFlush(request).addListener(f -> {
            if (!f.isSuccess()) {
                ch.close();
            }
        });
    }

    private void closed(Channel ch) {
        all.remove(ch);
        idle.remove(ch);
        if (open) {
            reconnect();
        }
    }

    private void reconnect() {
        bootstrap.connect().addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                adopt(f.channel());
            } else {
                stats.connectErrors.incrementAndGet();
                if (open) {
                    loop.schedule(this::reconnect, 100, TimeUnit.MILLISECONDS);
                }
            }
        });
    }

    private static String scope(FullHttpResponse response) {
        try {
            JsonNode body = JSON.readTree((java.io.InputStream) new ByteBufInputStream(response.content().duplicate()));
            if (body == null) {
                return "unknown";
            }
            if (body.hasNonNull("scope")) {
                return body.get("scope").asText();
            }
            return body.hasNonNull("error") ? body.get("error").asText() : "unknown";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static SslContext sslContext(LoadOptions options) {
        if (!"https".equals(options.url().getScheme())) {
            return null;
        }
        try {
            return SslContextBuilder.forClient().build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** Last in the pipeline: one answer per request, counted against its intended time. */
    private final class Answers extends SimpleChannelInboundHandler<FullHttpResponse> {
        HookFactory.Hook inFlight;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            long now = System.nanoTime();
            HookFactory.Hook hook = inFlight;
            if (hook == null) {
                ctx.close(); // an answer nobody asked for
                return;
            }
            inFlight = null;
            ConnectionPool.this.inFlight.decrementAndGet();
            int status = response.status().code();
            stats.response(status, status == 429 ? scope(response) : null, now - hook.intendedNanos());
            if (status == 202 && hook.kind() == HookFactory.Kind.FRESH) {
                factory.accepted(hook.event());
            }
            if (HttpUtil.isKeepAlive(response) && open) {
                idle.add(ctx.channel());
                dispatch();
            } else {
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (inFlight != null) { // closed before its answer
                inFlight = null;
                ConnectionPool.this.inFlight.decrementAndGet();
                stats.errors.incrementAndGet();
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}

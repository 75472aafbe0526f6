package org.sluice.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;

/** {@link RateLimitHandler} in a real Netty HTTP server on a loopback port, over real HTTP, on a manual clock. */
class RateLimitHandlerTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicLong bodyBytesSeen = new AtomicLong();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private EventLoopGroup group;
    private Channel server;
    private int port;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private KeyedLimiter<String> limiter(Limit limit) {
        return KeyedLimiter.<String>builder().clock(now::get).bandwidth(limit).build();
    }

    /** The application behind the handler: counts what reaches it, answers 200 "ok" after the last content. */
    private final class App extends SimpleChannelInboundHandler<HttpObject> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpContent content) {
                bodyBytesSeen.addAndGet(content.content().readableBytes());
            }
            if (msg instanceof LastHttpContent) {
                served.incrementAndGet();
                FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
                ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
                ctx.writeAndFlush(ok).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            }
        }
    }

    private void start(RateLimitHandler handler) throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), handler, new App());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0)).sync().channel();
        port = ((InetSocketAddress) server.localAddress()).getPort();
    }

    private java.net.http.HttpRequest.Builder request(String... headers) {
        java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/hook"));
        return headers.length > 0 ? request.headers(headers) : request;
    }

    private HttpResponse<String> send(java.net.http.HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private int admitted(int requests, String... headers) throws Exception {
        int ok = 0;
        for (int i = 0; i < requests; i++) {
            if (send(request(headers).build()).statusCode() == 200) {
                ok++;
            }
        }
        return ok;
    }

    @Test
    void admitsExactlyTheBurstThenRefusesWith429AndHeadersUntilTheClockMoves() throws Exception {
        start(RateLimitHandler.builder(limiter(Limit.of(2, 5))).policyName("api").build());

        assertThat(admitted(10)).isEqualTo(5);
        HttpResponse<String> refused = send(request().build());
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=3");
        assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=3");
        assertThat(served).hasValue(5);

        now.addAndGet(1_000_000_000L);
        assertThat(admitted(5)).isEqualTo(2);
        assertThat(served).hasValue(7);
    }

    @Test
    void aRefusedBodyNeverReachesTheApplicationAndTheConnectionStaysUsable() throws Exception {
        start(RateLimitHandler.builder(limiter(Limit.of(1, 1))).build());
        String body = "x".repeat(10_000);

        assertThat(send(request().POST(BodyPublishers.ofString(body)).build()).statusCode()).isEqualTo(200);
        assertThat(bodyBytesSeen).hasValue(10_000);

        HttpResponse<String> refused = send(request().POST(BodyPublishers.ofString(body)).build());
        assertThat(refused.statusCode()).isEqualTo(429);
        HttpResponse<String> refusedContinue = send(request().expectContinue(true)
                .POST(BodyPublishers.ofString(body)).build());
        assertThat(refusedContinue.statusCode()).isEqualTo(429);

        now.addAndGet(1_000_000_000L);
        assertThat(send(request().POST(BodyPublishers.ofString("yz")).build()).statusCode()).isEqualTo(200);
        assertThat(bodyBytesSeen).hasValue(10_002);
        assertThat(served).hasValue(2);
    }

    @Test
    void aHeaderKeysTheRequestAndItsAbsenceFallsBackToTheAddress() throws Exception {
        start(RateLimitHandler.builder(limiter(Limit.of(1, 2)))
                .key(RequestKey.header("X-Api-Key", RequestKey.remoteAddress())).build());

        assertThat(admitted(5, "X-Api-Key", "alpha")).isEqualTo(2);
        assertThat(admitted(5, "X-Api-Key", "beta")).isEqualTo(2);
        assertThat(admitted(5)).isEqualTo(2);
        assertThat(admitted(5, "X-Api-Key", "addr:127.0.0.1")).isEqualTo(2);
    }

    @Test
    void aBadPolicyNameIsRefusedWithTheValue() {
        assertThatThrownBy(() -> RateLimitHandler.builder(limiter(Limit.of(1, 1))).policyName("a\"b"))
                .hasMessageContaining("a\"b");
    }
}

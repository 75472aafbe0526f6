package org.sluice.edge.http;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import org.sluice.edge.stats.StatsRing;
import org.sluice.testkit.ManualClock;

/**
 * What the handler tests of this package share: a real Netty pipeline ({@link EmbeddedChannel})
 * whose peer is a real address, requests as the codec hands them on, and the metrics a
 * handler counts its answers in.
 */
final class Wire {

    private Wire() {
    }

    static IngestMetrics metrics() {
        return new IngestMetrics(new SimpleMeterRegistry(), new ManualClock(0), new StatsRing(() -> 0L));
    }

    /** An active channel through {@code handlers} (they have seen {@code channelActive}) whose peer is {@code peer}, port 40000. */
    static EmbeddedChannel channel(InetAddress peer, ChannelHandler... handlers) {
        InetSocketAddress remote = new InetSocketAddress(peer, 40_000);
        EmbeddedChannel channel = new EmbeddedChannel(false, false) {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }
        };
        channel.pipeline().addLast(handlers);
        try {
            channel.register();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return channel;
    }

    /** A channel through {@code handlers} whose peer is 127.0.0.1. */
    static EmbeddedChannel channel(ChannelHandler... handlers) {
        return channel(ip("127.0.0.1"), handlers);
    }

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A request's line and headers, as the codec passes them on (its header validation is off
     * in the server, so names and values arrive unchecked); {@code headers} are name, value pairs.
     */
    static HttpRequest request(HttpMethod method, String uri, String... headers) {
        DefaultHttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                DefaultHttpHeadersFactory.headersFactory().withValidation(false));
        for (int i = 0; i < headers.length; i += 2) {
            request.headers().add(headers[i], headers[i + 1]);
        }
        return request;
    }

    /** {@link #request} as the exchange {@link RequestSyntaxHandler} makes of it. */
    static IngestExchange exchange(HttpMethod method, String uri, String... headers) {
        return new IngestExchange(request(method, uri, headers), 1L);
    }

    /** The response's body as text; releases the response. */
    static String body(FullHttpResponse response) {
        try {
            return response.content().toString(StandardCharsets.UTF_8);
        } finally {
            response.release();
        }
    }
}

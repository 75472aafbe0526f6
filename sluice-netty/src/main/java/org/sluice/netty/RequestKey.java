package org.sluice.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What a request is counted against: the key {@link RateLimitHandler} charges, read from
 * the request's head only (it runs before the body). Keys of the built-in kinds carry a
 * prefix ({@code addr:}, {@code header:}) so that a header value can never take an
 * address's bucket. Called on the channel's event loop: it must not block.
 */
@FunctionalInterface
public interface RequestKey {

    /** The key of {@code request} arriving on {@code channel}; never null. */
    String of(Channel channel, HttpRequest request);

    /** The peer's IP address (no header is read; put a proxy-aware key in front when behind one). */
    static RequestKey remoteAddress() {
        return (channel, request) -> {
            SocketAddress peer = channel.remoteAddress();
            return "addr:" + (peer instanceof InetSocketAddress inet && inet.getAddress() != null
                    ? inet.getAddress().getHostAddress() : String.valueOf(peer));
        };
    }

    /** The value of header {@code name}; a request without it is counted under {@code fallback}. */
    static RequestKey header(CharSequence name, RequestKey fallback) {
        return (channel, request) -> {
            String value = request.headers().get(name);
            return value == null || value.isEmpty() ? fallback.of(channel, request) : "header:" + value;
        };
    }
}

package org.sluice.edge.http;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code http.max_connections_per_ip}: the open ingest connections of each peer address,
 * node-wide, and the handler that enforces the cap on each connection.
 *
 * <p>The address is the TCP peer's (nothing of the request has been read when a connection
 * opens, so {@code X-Forwarded-For} plays no part: behind a proxy, leave the cap off or set
 * it for the proxy). The count per address lives in one concurrent map; an address's entry
 * is removed when its last connection closes, so the map holds only addresses with open
 * connections. A connection is counted when it becomes active and uncounted when it closes;
 * a refused connection is never counted.
 */
public final class ConnectionsPerAddress {

    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();
    private final Counter refused;

    /** @param refused counts refused connections ({@code sluice_http_connections_refused_total}) */
    public ConnectionsPerAddress(int max, Counter refused) {
        this.max = max;
        this.refused = refused;
    }

    /** Counts one more connection from {@code address}; false (and nothing counted) past the cap. */
    boolean tryOpen(InetAddress address) {
        if (open.merge(address, 1, Integer::sum) <= max) {
            return true;
        }
        closed(address);
        refused.increment();
        return false;
    }

    void closed(InetAddress address) {
        open.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
    }

    /** Open connections from {@code address} (for tests). */
    int open(InetAddress address) {
        return open.getOrDefault(address, 0);
    }

    /** A new handler for one connection. */
    public ChannelHandler handler() {
        return new Gate();
    }

    /**
     * Pipeline position: right after the HTTP codec, before {@link InOrderGate}.
     *
     * <p>Concern: the cap, once, when the connection opens. A connection past it is answered
     * at once, before anything it sent is read, with {@code 503 {"error":"overload"}},
     * {@code Retry-After: 1} and {@code Connection: close}, and ends in a {@link LingeringClose}
     * (what the client sends is drained unparsed). The activation still travels on, so the
     * read deadline stands behind the linger as it does behind every connection. No request
     * was read, so {@code sluice_ingest_requests_total} does not count it; the refusal counter
     * does.
     */
    private final class Gate extends ChannelInboundHandlerAdapter {

        private InetAddress counted;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (ctx.channel().remoteAddress() instanceof InetSocketAddress peer && peer.getAddress() != null) {
                InetAddress address = peer.getAddress();
                if (tryOpen(address)) {
                    counted = address;
                } else {
                    FullHttpResponse answer = Responses.overload();
                    answer.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                    ctx.channel().attr(ResponseWriter.CLOSING).set(Boolean.TRUE);
                    LingeringClose.start(ctx, ctx.writeAndFlush(answer));
                }
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (counted != null) {
                closed(counted);
                counted = null;
            }
            ctx.fireChannelInactive();
        }
    }
}

package org.sluice.edge.delivery.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.Objects;

/**
 * Event loops the HTTP delivery client borrows instead of starting its own: the server's
 * ingest loops, so that at full load a destination's sockets are served by loops that are
 * awake anyway rather than by a thread of their own that must be woken for each answer.
 * The client never shuts a borrowed group down; its owner does, after the dispatcher has
 * closed.
 *
 * @param group        the loops (each destination has a pool of connections on each of them)
 * @param channelClass the socket channel class that fits {@code group}'s I/O handler (epoll or NIO)
 */
public record ClientLoops(EventLoopGroup group, Class<? extends SocketChannel> channelClass) {

    public ClientLoops {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(channelClass, "channelClass");
    }
}

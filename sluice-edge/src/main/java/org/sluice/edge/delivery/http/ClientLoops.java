package org.sluice.edge.delivery.http;

import io.netty.channel.EventLoopGroup;
import java.util.Objects;
import org.sluice.edge.netio.IoTransport;

/**
 * Event loops the HTTP delivery client borrows instead of starting its own: the server's
 * ingest loops, so that at full load a destination's sockets are served by loops that are
 * awake anyway rather than by a thread of their own that must be woken for each answer.
 * The client never shuts a borrowed group down; its owner does, after the dispatcher has
 * closed.
 *
 * @param group        the loops (each destination has a pool of connections on each of them)
 * @param transport    the transport {@code group} is made of ({@code http.transport}): its socket
 *                     channel class is the only one that fits the loops
 */
public record ClientLoops(EventLoopGroup group, IoTransport transport) {

    public ClientLoops {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(transport, "transport");
    }
}

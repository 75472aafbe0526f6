package org.sluice.edge.delivery.http;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sluice.edge.delivery.Destination;

/**
 * One destination's share of one event loop: its attempts queued and out there, and its
 * idle keep-alive connections, most recently used first. A destination has one pool per
 * loop of the client ({@link HttpDeliveryClient}).
 */
final class Pool {
    final Destination destination;
    final SslContext ssl;
    final String host;
    final int port;
    final String hostHeader;
    final String target;
    /** The loop every connection, timer and answer of this destination is on. */
    final EventLoop loop;
    /** The client's closed flag. */
    final AtomicBoolean clientClosed;
    /** Attempts sent and not yet started on {@link #loop}. */
    final Queue<HttpAttempt> queued = new ConcurrentLinkedQueue<>();
    /** Attempts queued and not yet completed (an attempt leaves when it completes); its size picks the least busy pool. */
    final Set<HttpAttempt> live = ConcurrentHashMap.newKeySet();
    /** A run of {@code startQueued} is submitted to {@link #loop} and has not begun. */
    final AtomicBoolean startScheduled = new AtomicBoolean();
    /** Idle connections, most recently used first; touched on {@link #loop} only. */
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();

    Pool(Destination destination, SslContext ssl, EventLoop loop, AtomicBoolean clientClosed) {
        this.destination = destination;
        this.clientClosed = clientClosed;
        this.loop = loop;
        this.ssl = ssl;
        URI u = HttpDeliveryClient.target(destination).url();
        boolean https = "https".equalsIgnoreCase(u.getScheme());
        this.host = u.getHost();
        int defaultPort = https ? 443 : 80;
        this.port = u.getPort() == -1 ? defaultPort : u.getPort();
        this.hostHeader = u.getPort() == -1 || u.getPort() == defaultPort ? u.getHost() : u.getHost() + ":" + u.getPort();
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        this.target = u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
    }

    /** On {@link #loop}: closes every idle connection (the client is closing). */
    void closeIdle() {
        for (Channel ch = idle.pollFirst(); ch != null; ch = idle.pollFirst()) {
            ch.close();
        }
    }

    Channel takeIdle() {
        for (Channel ch = idle.pollFirst(); ch != null; ch = idle.pollFirst()) {
            if (ch.isActive()) {
                return ch;
            }
        }
        return null;
    }

    void giveBack(Channel ch) {
        if (!ch.isActive()) {
            return;
        }
        if (clientClosed.get()) { // closeIdle may have run already: nothing would close it
            ch.close();
            return;
        }
        idle.addFirst(ch);
        while (idle.size() > destination.maxInFlight()) { // O(1) for an ArrayDeque
            Channel extra = idle.pollLast();
            if (extra != null) {
                extra.close();
            }
        }
    }
}

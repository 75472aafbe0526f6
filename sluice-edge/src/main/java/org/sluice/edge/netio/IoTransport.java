package org.sluice.edge.netio;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Locale;
import java.util.Optional;

/**
 * One of Netty's socket transports: what an event loop group is made of and which channel
 * classes fit it. A group and the channels registered on it must be of the same transport.
 */
public enum IoTransport {
    /** Linux io_uring: reads and writes of many sockets submitted and reaped per system call. */
    IO_URING,
    /** Linux epoll, edge-triggered: a readiness wake-up, then a system call per read or write. */
    EPOLL,
    /** The JDK's selector: everywhere, and the slowest. */
    NIO;

    /** The spelling of {@code http.transport} and of the boot line. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Why this transport cannot run in this process, or empty when it can. */
    public Optional<String> unavailability() {
        return switch (this) {
            case IO_URING -> IoUringProbe.refusal();
            case EPOLL -> Epoll.isAvailable() ? Optional.empty()
                    : Optional.of("epoll unavailable: " + IoUringProbe.describe(Epoll.unavailabilityCause()));
            case NIO -> Optional.empty();
        };
    }

    /** A group of {@code threads} daemon event loops named {@code name-N}. */
    public EventLoopGroup group(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), ioHandlers());
    }

    /** The I/O handlers of this transport's event loops. */
    public IoHandlerFactory ioHandlers() {
        return switch (this) {
            case IO_URING -> IoUringIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        };
    }

    /** The client (and accepted) socket channel class of this transport. */
    public Class<? extends SocketChannel> socketChannel() {
        return switch (this) {
            case IO_URING -> IoUringSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }

    /** The listening socket channel class of this transport. */
    public Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /** Whether a listener of this transport can bind with {@code SO_REUSEPORT} (the native ones). */
    public boolean reusesPorts() {
        return this != NIO;
    }
}

package org.sluice.edge.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Native epoll when this platform has it, else NIO: the one place that chooses. */
final class NettyTransport {

    private NettyTransport() {
    }

    static boolean epoll() {
        return Epoll.isAvailable();
    }

    static EventLoopGroup group(int threads, String name) {
        DefaultThreadFactory threadFactory = new DefaultThreadFactory(name, true);
        return new MultiThreadIoEventLoopGroup(threads, threadFactory,
                epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    static Class<? extends SocketChannel> socketChannel() {
        return epoll() ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static Class<? extends ServerChannel> serverChannel() {
        return epoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * Applies the listener options: a deep accept backlog, address reuse and, when asked and
     * available (epoll only), {@code SO_REUSEPORT} so several processes can share one port.
     *
     * @return false when {@code reusePort} was asked for and this transport cannot do it
     */
    static boolean configure(ServerBootstrap bootstrap, boolean reusePort) {
        bootstrap.option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true);
        if (reusePort) {
            if (!epoll()) {
                return false;
            }
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        return true;
    }
}

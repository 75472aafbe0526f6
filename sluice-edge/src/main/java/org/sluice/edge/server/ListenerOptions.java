package org.sluice.edge.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.UnixChannelOption;
import org.sluice.edge.netio.IoTransport;

/** The socket options of both listeners, on whichever transport {@code http.transport} chose. */
final class ListenerOptions {

    private ListenerOptions() {
    }

    /**
     * Sets {@code bootstrap}'s channel class for {@code transport} and the listener options: a
     * deep accept backlog, address reuse and, when asked and available (the native transports
     * only), {@code SO_REUSEPORT} so several processes can share one port.
     *
     * @return false when {@code reusePort} was asked for and this transport cannot do it
     */
    static boolean configure(ServerBootstrap bootstrap, IoTransport transport, boolean reusePort) {
        bootstrap.channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true);
        if (reusePort) {
            if (!transport.reusesPorts()) {
                return false;
            }
            bootstrap.option(UnixChannelOption.SO_REUSEPORT, true);
        }
        return true;
    }
}

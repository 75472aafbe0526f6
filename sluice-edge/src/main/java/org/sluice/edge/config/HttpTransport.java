package org.sluice.edge.config;

import org.sluice.edge.netio.IoTransport;
import org.sluice.edge.netio.TransportChoice;
import org.sluice.edge.settings.ConfigWord;

/**
 * {@code http.transport}: the Netty transport of the ingest and admin listeners and of the
 * HTTP delivery client's event loops.
 */
public enum HttpTransport implements ConfigWord {
    /** The default: io_uring where the kernel allows it, else epoll, else NIO. */
    AUTO,
    /** Linux io_uring, or the boot fails saying why it is refused. */
    IO_URING,
    /** Linux epoll, or the boot fails. */
    EPOLL,
    /** The JDK's selector. */
    NIO;

    /**
     * The transport this setting gives on this machine, with the reason.
     *
     * @throws IllegalArgumentException when it names a transport that cannot run here
     */
    public TransportChoice choose() {
        return switch (this) {
            case AUTO -> TransportChoice.auto();
            case IO_URING -> TransportChoice.named("http.transport", IoTransport.IO_URING);
            case EPOLL -> TransportChoice.named("http.transport", IoTransport.EPOLL);
            case NIO -> TransportChoice.named("http.transport", IoTransport.NIO);
        };
    }
}

package org.sluice.edge.netio;

import java.util.Objects;
import java.util.Optional;

/**
 * The transport a node runs on and why, as the boot line prints it:
 * {@code transport io_uring (auto: io_uring available)} or
 * {@code transport epoll (auto: io_uring refused: io_uring_disabled: ...)}.
 *
 * @param transport the transport every listener and the delivery client's loops use
 * @param reason    why this one: the setting, and under {@code auto} what was refused before it
 */
public record TransportChoice(IoTransport transport, String reason) {

    public TransportChoice {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(reason, "reason");
    }

    /** {@code auto}: io_uring where the kernel allows it, else epoll, else NIO. */
    public static TransportChoice auto() {
        return auto(IoTransport.IO_URING.unavailability(), IoTransport.EPOLL.unavailability());
    }

    /** {@link #auto()} over given refusals (empty: that transport runs here). */
    static TransportChoice auto(Optional<String> ioUringRefusal, Optional<String> epollRefusal) {
        if (ioUringRefusal.isEmpty()) {
            return new TransportChoice(IoTransport.IO_URING, "auto: io_uring available");
        }
        String refused = "auto: io_uring refused: " + ioUringRefusal.get();
        if (epollRefusal.isEmpty()) {
            return new TransportChoice(IoTransport.EPOLL, refused);
        }
        return new TransportChoice(IoTransport.NIO, refused + "; " + epollRefusal.get());
    }

    /**
     * A transport the configuration names ({@code key} is its path, for the message).
     *
     * @throws IllegalArgumentException when it cannot run here, with the reason
     */
    public static TransportChoice named(String key, IoTransport transport) {
        Optional<String> refusal = transport.unavailability();
        if (refusal.isPresent()) {
            throw new IllegalArgumentException(key + " is " + transport.configName() + ", which cannot run here: "
                    + refusal.get() + " (set " + key + ": auto to fall back)");
        }
        return new TransportChoice(transport, key + ": " + transport.configName());
    }

    /** {@code io_uring (auto: io_uring available)}. */
    @Override
    public String toString() {
        return transport.configName() + " (" + reason + ")";
    }
}

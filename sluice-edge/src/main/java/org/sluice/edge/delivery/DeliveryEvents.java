package org.sluice.edge.delivery;

import org.sluice.edge.store.DisabledDestination;

/**
 * What the dispatcher tells about its destinations as it happens: the operational events
 * ({@code destination.disabled}, {@code destination.recovered}, {@code dead_letter.created}).
 * Called on the dispatcher's driver thread or a transport's answer thread: an implementation
 * queues and returns, it does no I/O in the call.
 */
public interface DeliveryEvents {

    /** Tells nothing. */
    DeliveryEvents NONE = new DeliveryEvents() {
    };

    /** {@code destination} was disabled (the state is stored). */
    default void disabled(String destination, DisabledDestination disabled) {
    }

    /** {@code destination}'s first success after an operator enabled it, at {@code nowMs}. */
    default void recovered(String destination, long nowMs) {
    }

    /**
     * A delivery of hook {@code hookId} from {@code source} to {@code destination} is dead, for
     * {@code reason} ({@code max_attempts}, ...), with its last status (or null) and error (or null).
     */
    default void deadLetter(String destination, String hookId, String source, String reason, Integer status,
                            String error, long nowMs) {
    }
}

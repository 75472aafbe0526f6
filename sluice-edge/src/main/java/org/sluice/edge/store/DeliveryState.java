package org.sluice.edge.store;

import java.util.Locale;

/**
 * Where the delivery of one hook to one destination stands. {@link #code()} is the word
 * shown: the constant's name in lower case.
 */
public enum DeliveryState {
    /** Not yet delivered; it is due at its next attempt time and will be attempted. */
    PENDING,
    /** A 2xx (or a broker's acknowledgement) answered an attempt. */
    DELIVERED,
    /** Given up: see {@link DeliveryRow#deadReason()}. */
    DEAD;

    private final String code = name().toLowerCase(Locale.ROOT);

    public String code() {
        return code;
    }
}

package org.sluice.edge.store;

/** Where the delivery of one hook to one destination stands. {@link #code()} is the word shown. */
public enum DeliveryState {
    /** Not yet delivered; it is due at its next attempt time and will be attempted. */
    PENDING("pending"),
    /** A 2xx (or a broker's acknowledgement) answered an attempt. */
    DELIVERED("delivered"),
    /** Given up: see {@link DeliveryRow#deadReason()}. */
    DEAD("dead");

    private final String code;

    DeliveryState(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}

package org.sluice.edge.store;

/** Where the delivery of one hook to one destination stands. {@link #code()} is the word shown. */
public enum DeliveryState {
    /** Not yet delivered; it has a due entry and will be attempted. */
    PENDING("pending", 0),
    /** A 2xx answered an attempt. */
    DELIVERED("delivered", 1),
    /** Given up: see {@link DeliveryRow#deadReason()}. */
    DEAD("dead", 2);

    private final String code;
    final byte stored;

    DeliveryState(String code, int stored) {
        this.code = code;
        this.stored = (byte) stored;
    }

    public String code() {
        return code;
    }

    static DeliveryState ofStored(byte b) {
        for (DeliveryState s : values()) {
            if (s.stored == b) {
                return s;
            }
        }
        throw new HookStoreException("stored delivery row has state " + b + ", this version reads 0 to 2");
    }
}

package org.sluice.core;

/** An {@link OverrideStore} could not be read or written. Unchecked; maps to {@code store_unavailable}. */
public class OverrideStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public OverrideStoreException(String message) {
        super(message);
    }

    public OverrideStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

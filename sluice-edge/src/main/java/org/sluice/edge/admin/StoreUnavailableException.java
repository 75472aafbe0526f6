package org.sluice.edge.admin;

/** The store behind the admin API cannot be read or written; answered {@code 503 store_unavailable}. */
public final class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.sluice.edge.store;

/** The store could not be opened, read or written. The message names the data dir or the operation. */
public class HookStoreException extends RuntimeException {

    public HookStoreException(String message) {
        super(message);
    }

    public HookStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

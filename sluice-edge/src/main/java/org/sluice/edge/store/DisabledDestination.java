package org.sluice.edge.store;

import java.util.Objects;

/**
 * A destination the dispatcher disabled because it failed without a single success for its
 * {@code breaker.disable_after_seconds}: nothing is sent to it until an operator enables it.
 *
 * @param atMillis  when it was disabled (epoch ms, the store's wall clock)
 * @param lastError what its last failed attempt ended with ({@code HTTP 503}, {@code connect refused}, ...)
 */
public record DisabledDestination(long atMillis, String lastError) {

    /** The longest last error kept, in characters; a longer one is cut there. */
    public static final int MAX_ERROR_CHARS = 1024;

    public DisabledDestination {
        Objects.requireNonNull(lastError, "lastError");
        if (lastError.length() > MAX_ERROR_CHARS) {
            lastError = lastError.substring(0, MAX_ERROR_CHARS);
        }
    }
}

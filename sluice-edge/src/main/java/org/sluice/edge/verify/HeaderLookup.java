package org.sluice.edge.verify;

/**
 * Read access to a request's headers, case-insensitive by name. The HTTP layer adapts its
 * own header type to this, so verification and dedupe code never see Netty.
 */
@FunctionalInterface
public interface HeaderLookup {

    /** The header's value (several lines joined with ", "), or null when absent. */
    String get(String name);

    /** The header's value, or null when it is absent or empty (a signature header that says nothing). */
    default String nonEmpty(String name) {
        String value = get(name);
        return value == null || value.isEmpty() ? null : value;
    }
}

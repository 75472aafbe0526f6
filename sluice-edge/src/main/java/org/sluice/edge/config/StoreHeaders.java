package org.sluice.edge.config;

import java.util.List;

/**
 * A source's {@code store_headers}: which received headers a hook is stored with. By default
 * ({@link #NEEDED}) only those something reads later: the verification scheme's, the dedupe
 * header, each {@code deliver_to} destination's {@code forward_headers}, and
 * {@code Content-Type}; {@code names} adds more; {@code all} keeps every header as received.
 *
 * @param all   every header is stored
 * @param names header names stored besides the needed ones (empty with {@code all})
 */
public record StoreHeaders(boolean all, List<String> names) {

    /** The default: the needed headers only. */
    public static final StoreHeaders NEEDED = new StoreHeaders(false, List.of());
    /** {@code store_headers: all}. */
    public static final StoreHeaders ALL = new StoreHeaders(true, List.of());

    public StoreHeaders {
        names = List.copyOf(names);
    }
}

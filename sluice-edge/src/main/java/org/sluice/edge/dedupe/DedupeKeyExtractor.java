package org.sluice.edge.dedupe;

import org.sluice.edge.verify.HeaderLookup;

/** Finds a hook's dedupe key. Implementations are immutable and thread-safe. */
@FunctionalInterface
public interface DedupeKeyExtractor {

    /** The key (at most 200 bytes of UTF-8, longer keys become {@code sha256:<hex>}), or null: no key. */
    String extract(HeaderLookup headers, byte[] body);
}

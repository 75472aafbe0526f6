package org.sluice.edge.dedupe;

import org.sluice.edge.verify.HeaderLookup;

/** The key is one header's value; absent or blank is no key. */
final class HeaderKey implements DedupeKeyExtractor {

    private final String header;

    HeaderKey(String header) {
        this.header = header;
    }

    @Override
    public String extract(HeaderLookup headers, byte[] body) {
        String value = headers.get(header);
        return value == null || value.isBlank() ? null : DedupeKeys.bounded(value);
    }
}

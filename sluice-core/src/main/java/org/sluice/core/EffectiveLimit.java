package org.sluice.core;

import java.util.Objects;

/**
 * The limit that applies to a tenant and where it came from. {@code limit} is null
 * exactly when {@code source} is {@link LimitSource#NONE}: unlimited.
 */
public record EffectiveLimit(Limit limit, LimitSource source) {

    /** No limit: unlimited. */
    public static final EffectiveLimit UNLIMITED = new EffectiveLimit(null, LimitSource.NONE);

    public EffectiveLimit {
        Objects.requireNonNull(source, "source");
        if ((limit == null) != (source == LimitSource.NONE)) {
            throw new IllegalArgumentException("limit must be null exactly when source is NONE, got "
                    + limit + " from " + source);
        }
    }

    /** True when no limit applies. */
    public boolean unlimited() {
        return limit == null;
    }
}

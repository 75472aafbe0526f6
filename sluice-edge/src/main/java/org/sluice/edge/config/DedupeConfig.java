package org.sluice.edge.config;

import java.util.Objects;

/**
 * {@code dedupe:} the duplicate window.
 *
 * @param ttlSeconds {@code dedupe.ttl_seconds}, default 259200 (72 h): how long a committed
 *                   (tenant, source, key) answers "duplicate"
 * @param scope      {@code dedupe.scope}, default {@link DedupeScope#NODE}
 */
public record DedupeConfig(long ttlSeconds, DedupeScope scope) {

    public static final long DEFAULT_TTL_SECONDS = 259_200L;

    public DedupeConfig {
        Objects.requireNonNull(scope, "scope");
    }

    public static DedupeConfig defaults() {
        return new DedupeConfig(DEFAULT_TTL_SECONDS, DedupeScope.NODE);
    }
}

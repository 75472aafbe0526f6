package org.sluice.edge.config;

import java.util.Objects;

/**
 * {@code dedupe:} the duplicate window.
 *
 * @param ttlSeconds {@code dedupe.ttl_seconds}, default 259200 (72 h): how long a committed
 *                   (tenant, source, key) answers "duplicate"; at most {@link #MAX_TTL_SECONDS}
 * @param scope      {@code dedupe.scope}, default {@link DedupeScope#NODE}
 */
public record DedupeConfig(long ttlSeconds, DedupeScope scope) {

    public static final long DEFAULT_TTL_SECONDS = 259_200L;
    /**
     * Largest {@code dedupe.ttl_seconds}: 3650 days. Far beyond any sender's retry window,
     * and far from the {@code long} millisecond range, where {@code now + ttl} would wrap
     * into the past (the store saturates the sum as well).
     */
    public static final long MAX_TTL_SECONDS = 315_360_000L;

    public DedupeConfig {
        Objects.requireNonNull(scope, "scope");
    }

    public static DedupeConfig defaults() {
        return new DedupeConfig(DEFAULT_TTL_SECONDS, DedupeScope.NODE);
    }
}

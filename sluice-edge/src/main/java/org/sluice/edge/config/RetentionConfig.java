package org.sluice.edge.config;

/**
 * {@code retention:} how long finished hooks and dead letters are kept.
 *
 * @param hooksSeconds {@code retention.hooks_seconds}: a hook whose deliveries are all
 *                     finished (or that has none) is deleted once this much older than its
 *                     receipt; a hook with a pending delivery is never deleted
 * @param deadSeconds  {@code retention.dead_seconds}: a dead letter is deleted this long
 *                     after it died
 */
public record RetentionConfig(long hooksSeconds, long deadSeconds) {

    public static final long DEFAULT_HOOKS_SECONDS = 604_800;
    public static final long DEFAULT_DEAD_SECONDS = 2_592_000;
    /** Ten years: far beyond any use, far below overflowing a millisecond clock. */
    public static final long MAX_SECONDS = 315_360_000;

    public static RetentionConfig defaults() {
        return new RetentionConfig(DEFAULT_HOOKS_SECONDS, DEFAULT_DEAD_SECONDS);
    }
}

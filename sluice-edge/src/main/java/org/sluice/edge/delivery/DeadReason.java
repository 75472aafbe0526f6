package org.sluice.edge.delivery;

import java.util.Locale;

/**
 * Why a delivery stopped being retried. {@link #code()} is the word stored and shown: the
 * constant's name in lower case, as for every enum the edge spells in its config or JSON.
 */
public enum DeadReason {
    /** The destination answered with one of its {@code permanent_statuses}. */
    PERMANENT_STATUS,
    /** A broker refused the record for good (too large, not authorised, invalid topic or subject). */
    PERMANENT_ERROR,
    /** {@code retry.max_attempts} attempts failed. */
    MAX_ATTEMPTS,
    /** {@code retry.max_age_seconds} passed since the hook was received. */
    MAX_AGE,
    /** The destination's {@code transform} could not reshape the attempt (its reason is the {@code last_error}). */
    TRANSFORM_ERROR;

    private final String code = name().toLowerCase(Locale.ROOT);

    public String code() {
        return code;
    }
}

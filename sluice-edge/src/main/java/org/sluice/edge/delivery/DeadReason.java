package org.sluice.edge.delivery;

/** Why a delivery stopped being retried. {@link #code()} is the word stored and shown. */
public enum DeadReason {
    /** The destination answered with one of its {@code permanent_statuses}. */
    PERMANENT_STATUS("permanent_status"),
    /** A broker refused the record for good (too large, not authorised, invalid topic or subject). */
    PERMANENT_ERROR("permanent_error"),
    /** {@code retry.max_attempts} attempts failed. */
    MAX_ATTEMPTS("max_attempts"),
    /** {@code retry.max_age_seconds} passed since the hook was received. */
    MAX_AGE("max_age"),
    /** The destination's {@code transform} could not reshape the attempt (its reason is the {@code last_error}). */
    TRANSFORM_ERROR("transform_error");

    private final String code;

    DeadReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}

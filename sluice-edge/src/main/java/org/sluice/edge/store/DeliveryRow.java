package org.sluice.edge.store;

import java.util.List;
import java.util.Objects;

/**
 * The delivery of one hook to one destination, as stored.
 *
 * @param hookId            the hook's id
 * @param destination       the destination's name
 * @param state             pending, delivered or dead
 * @param attempts          attempts made so far (the next one is number {@code attempts + 1})
 * @param nextAttemptAtMillis when a pending delivery is due (epoch ms); for a finished one, when it was last due
 * @param scheduledAtMillis when this delivery was scheduled: the hook's commit, or its last redelivery. Together
 *                          with {@code attempts} it identifies the version of the row an operation was read from
 * @param updatedAtMillis   when the row last changed
 * @param lastStatus        the HTTP status of the last attempt, or null (no attempt yet, or no answer)
 * @param lastError         what went wrong in the last attempt without an answer (reset, timeout, ...), or null
 * @param deliveredAtMillis when it was delivered, or null
 * @param deadReason        {@code permanent_status}, {@code permanent_error}, {@code max_attempts} or {@code max_age} when dead, else null
 * @param deadAtMillis      when it became dead, or null
 */
public record DeliveryRow(String hookId, String destination, DeliveryState state, int attempts,
                          long nextAttemptAtMillis, long scheduledAtMillis, long updatedAtMillis,
                          Integer lastStatus, String lastError, Long deliveredAtMillis,
                          String deadReason, Long deadAtMillis) {

    /** The reasons a delivery is given up for, as {@code DeadReason.code()} words them. */
    public static final List<String> DEAD_REASONS = List.of("permanent_status", "max_attempts", "max_age", "permanent_error",
            "transform_error");

    public DeliveryRow {
        Objects.requireNonNull(hookId, "hookId");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(state, "state");
    }

    /** {@code reason} if it is one of {@link #DEAD_REASONS}; else an {@link IllegalArgumentException}. */
    public static String checkDeadReason(String reason) {
        if (!DEAD_REASONS.contains(reason)) {
            throw new IllegalArgumentException("dead reason must be one of " + DEAD_REASONS + ", got " + reason);
        }
        return reason;
    }

    /** The number the next attempt carries ({@code sluice-attempt}). */
    public int nextAttemptNumber() {
        return attempts + 1;
    }
}

package org.sluice.edge.delivery;

/**
 * What one delivery attempt came back with: an HTTP answer, no answer at all, or (from a
 * broker) an acknowledgement or a refusal that no retry can change.
 */
public sealed interface AttemptResult {

    /** The destination answered with {@code status}. */
    static AttemptResult answered(int status) {
        return new Answered(status, RetryAfter.NONE);
    }

    /**
     * The destination answered with {@code status} and a {@code Retry-After} worth
     * {@code retryAfterMillis} ({@link RetryAfter#parseMillis}; {@link RetryAfter#NONE} when absent).
     */
    static AttemptResult answered(int status, long retryAfterMillis) {
        return new Answered(status, retryAfterMillis);
    }

    /** A broker took the record or message for good (Kafka's ack, JetStream's publish ack): delivered. */
    static AttemptResult acknowledged() {
        return new Acknowledged();
    }

    static AttemptResult failed(Failure failure) {
        return new Failed(failure);
    }

    /** The destination refused the attempt for good (a broker's permanent error): dead, {@code permanent_error}. */
    static AttemptResult permanent() {
        return new Permanent();
    }

    /**
     * The destination's {@code transform} could not reshape the attempt, so nothing was sent:
     * dead, {@code transform_error}. Not the destination's failure: its breaker is not told.
     */
    static AttemptResult untransformable() {
        return new Untransformable();
    }

    /** An HTTP answer. Redirects are answers too: they are not followed. */
    record Answered(int status, long retryAfterMillis) implements AttemptResult {
    }

    /** A broker's acknowledgement. It has no status: the ledger records none ({@code last_status} null). */
    record Acknowledged() implements AttemptResult {
    }

    /** No HTTP answer, or a broker's retriable error. */
    record Failed(Failure failure) implements AttemptResult {
    }

    /** A refusal no retry can change: a record too large, a topic not authorised, an invalid subject. */
    record Permanent() implements AttemptResult {
    }

    /** The transformation failed; nothing was sent. */
    record Untransformable() implements AttemptResult {
    }

    /** Why there was no answer. Every kind is retried. */
    enum Failure {
        /** The connection could not be made (refused, unreachable, DNS, TLS handshake). */
        CONNECT,
        /** The connection was reset or closed before a full answer. */
        RESET,
        /** No full answer within the attempt's timeout. */
        TIMEOUT,
        /** The answer was not readable HTTP. */
        PROTOCOL,
        /** A broker answered with an error a later attempt may not meet (no leader, not enough replicas, no stream yet). */
        BROKER
    }
}

package org.sluice.edge.delivery;

/** What one delivery attempt came back with: an HTTP answer, or no answer at all. */
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

    static AttemptResult failed(Failure failure) {
        return new Failed(failure);
    }

    /** An HTTP answer. Redirects are answers too: they are not followed. */
    record Answered(int status, long retryAfterMillis) implements AttemptResult {
    }

    /** No HTTP answer. */
    record Failed(Failure failure) implements AttemptResult {
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
        PROTOCOL
    }
}

package org.sluice.edge.delivery;

/** What becomes of a delivery after one attempt, as {@link RetryPolicy#decide} judges it. */
public sealed interface Decision {

    /** A 2xx answer: the delivery is done. */
    record Delivered() implements Decision {
    }

    /** Try again after {@code delayMillis}. */
    record Retry(long delayMillis) implements Decision {
    }

    /** Never try again. */
    record Dead(DeadReason reason) implements Decision {
    }
}

package org.sluice.edge.store.kafka;

/**
 * Told of every record the log's producer finishes, on the producer's I/O thread: for the
 * metrics {@code sluice_log_produce_seconds} and {@code sluice_log_produce_errors_total}
 * (the server implements it; the store names no metrics library). Must be quick and must
 * not block.
 */
public interface ProduceListener {

    ProduceListener NONE = new ProduceListener() {
        @Override
        public void acknowledged(long nanos) {
        }

        @Override
        public void failed() {
        }
    };

    /** A record the log acknowledged, {@code nanos} after it was handed to the producer. */
    void acknowledged(long nanos);

    /** A record the log did not take (an error, or the producer's own timeout). */
    void failed();
}

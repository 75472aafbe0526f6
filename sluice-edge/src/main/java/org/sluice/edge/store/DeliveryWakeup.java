package org.sluice.edge.store;

/**
 * Told when a commit has scheduled deliveries, so whoever sends them (the dispatcher) can
 * look at the ledger now rather than at its next poll. The ingest path calls
 * {@link #scheduled()} after a commit that wrote at least one pending delivery row, on a
 * worker thread, once per accepted hook: an implementation must be cheap and must never
 * block (set a flag, unpark a thread). The rows are durable before the call, so a wake-up
 * that is lost or coalesced only delays a delivery until the next poll.
 */
@FunctionalInterface
public interface DeliveryWakeup {

    /** Wakes nobody: the default while no dispatcher runs. */
    DeliveryWakeup NONE = () -> { };

    /** At least one pending delivery row was just committed. Non-blocking. */
    void scheduled();
}

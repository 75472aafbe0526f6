package org.sluice.fleet;

/** The fleet circuit breaker's state, as {@code GET /v1/admission} shows it. */
public enum BreakerState {
    /** Calls go to the store. */
    CLOSED("closed"),
    /** No call goes to the store until {@code fleet.breaker_open_ms} has passed. */
    OPEN("open"),
    /** One probe call is out; its outcome closes or re-opens the breaker. */
    PROBING("probing");

    private final String label;

    BreakerState(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}

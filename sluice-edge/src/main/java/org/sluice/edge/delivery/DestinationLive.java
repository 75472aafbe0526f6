package org.sluice.edge.delivery;

/**
 * What the dispatcher knows of one destination right now, beyond the store's counts.
 *
 * @param inFlight            attempts started and not yet answered
 * @param breakerOpen         true while the breaker holds attempts back (open, or half open
 *                            with its probe out)
 * @param deliveredTotal      deliveries marked delivered since this process started
 * @param failedAttemptsTotal attempts that did not deliver since this process started
 */
public record DestinationLive(int inFlight, boolean breakerOpen, long deliveredTotal, long failedAttemptsTotal) {

    /** A configured destination the dispatcher has not touched yet. */
    public static final DestinationLive IDLE = new DestinationLive(0, false, 0, 0);
}

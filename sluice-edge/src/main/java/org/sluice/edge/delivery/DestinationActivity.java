package org.sluice.edge.delivery;

/**
 * What the dispatcher is doing for one destination right now, beside what the store counts
 * for it ({@link org.sluice.edge.store.DestinationBacklog}).
 *
 * @param inFlight            attempts started and not yet answered
 * @param breakerOpen         true while the breaker holds attempts back (open, or half open
 *                            with its probe out)
 * @param deliveredTotal      deliveries marked delivered since this process started
 * @param failedAttemptsTotal attempts that did not deliver since this process started
 * @param pacePerSecond       the pace now, attempts per second: the fixed {@code rate}, or where an
 *                            adaptive pace stands on this node; {@link Double#NaN} when unpaced
 */
public record DestinationActivity(int inFlight, boolean breakerOpen, long deliveredTotal, long failedAttemptsTotal,
                                  double pacePerSecond) {

    /** A configured destination the dispatcher has not touched yet. */
    public static final DestinationActivity IDLE = new DestinationActivity(0, false, 0, 0);

    /** An unpaced destination's. */
    public DestinationActivity(int inFlight, boolean breakerOpen, long deliveredTotal, long failedAttemptsTotal) {
        this(inFlight, breakerOpen, deliveredTotal, failedAttemptsTotal, Double.NaN);
    }

    /** Whether the destination is paced ({@link #pacePerSecond} is a number). */
    public boolean paced() {
        return !Double.isNaN(pacePerSecond);
    }
}

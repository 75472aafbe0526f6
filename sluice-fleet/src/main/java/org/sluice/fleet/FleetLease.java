package org.sluice.fleet;

/**
 * What the fleet store said to a {@link FleetClient#lease} of pacing permits. Every variant
 * is a value; none is an error.
 *
 * <ul>
 *   <li>{@link Granted}: {@code permits} (0 to the number asked for) were charged to the
 *       bucket and may be spent now; one more would be granted after {@code waitUs}
 *       (0: at once).</li>
 *   <li>{@link Fallback}: the store did not answer within {@code fleet.timeout_ms}, failed,
 *       or the breaker is open: nothing is known to be charged, pace from this node alone.</li>
 * </ul>
 */
public sealed interface FleetLease {

    /** {@code permits} charged now; the next would be granted after {@code waitUs}. */
    record Granted(int permits, long waitUs) implements FleetLease {
    }

    /** Pace node-local: the store did not answer. */
    record Fallback(FleetAnswer.Reason reason) implements FleetLease {
    }
}

package org.sluice.edge.store;

import java.util.Map;
import java.util.Set;

/**
 * Which destinations are held: paused by an operator, or disabled by the dispatcher after
 * failing for their {@code breaker.disable_after_seconds} ({@link DisabledDestination});
 * and, on the way to a disable, since when each has been failing ({@link #failingSince}), so
 * that a restart counts a run of failures from where it began rather than from the restart.
 * Control state, kept durably by the store; pause and disable are lifted only by an
 * operator. The dispatcher asks on every pass, so reads are answered from memory once the
 * state is read.
 */
public interface DestinationPauses {

    /** Pauses or resumes a destination; durable, so the state survives a restart. */
    void setPaused(String destination, boolean paused, long nowMillis);

    /**
     * The destinations stored as paused. Read from the store once, then kept in memory and
     * changed by {@link #setPaused} after its write.
     */
    Set<String> pausedDestinations();

    /**
     * Whether {@code destination} may be held, from memory only (no read, no lock): true when
     * paused or disabled, and also when the state has not been read since the store opened.
     */
    boolean mayBePaused(String destination);

    /**
     * Disables {@code destination} ({@code disabled} non-null) or enables it again (null);
     * durable, so the state survives a restart. A destination may be paused and disabled at
     * once: each is lifted on its own. Either way it clears the destination's
     * {@link #failingSince} start: a disable ends the run, and an enabled destination starts a
     * fresh one at its next failure.
     */
    void setDisabled(String destination, DisabledDestination disabled, long nowMillis);

    /**
     * The destinations stored as disabled, by name. Read from the store once, then kept in
     * memory and changed by {@link #setDisabled} after its write.
     */
    Map<String, DisabledDestination> disabledDestinations();

    /**
     * When each destination's run of failures began (epoch ms, the dispatcher's wall clock), by
     * name: the start the dispatcher stored with {@link #setFailingSince} and nothing has
     * cleared since. A destination with no stored run is absent. Read from the store once,
     * then kept in memory and changed after each write.
     */
    Map<String, Long> failingSince();

    /**
     * Stores when {@code destination}'s run of failures began ({@code sinceMillis}, epoch ms),
     * or clears it ({@code sinceMillis} {@value #NOT_FAILING}); durable, so the run survives a
     * restart. The dispatcher's pass calls it when a run's start is to be kept and at the
     * first success after, never per attempt.
     */
    void setFailingSince(String destination, long sinceMillis, long nowMillis);

    /** {@link #setFailingSince}'s "no run": clears the stored start. */
    long NOT_FAILING = -1;
}

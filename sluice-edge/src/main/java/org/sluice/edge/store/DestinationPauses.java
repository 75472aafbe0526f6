package org.sluice.edge.store;

import java.util.Map;
import java.util.Set;

/**
 * Which destinations are held: paused by an operator, or disabled by the dispatcher after
 * failing for their {@code breaker.disable_after_seconds} ({@link DisabledDestination}).
 * Control state, kept durably by the store; both are lifted only by an operator. The
 * dispatcher asks on every pass, so reads are answered from memory once the state is read.
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
     * once: each is lifted on its own.
     */
    void setDisabled(String destination, DisabledDestination disabled, long nowMillis);

    /**
     * The destinations stored as disabled, by name. Read from the store once, then kept in
     * memory and changed by {@link #setDisabled} after its write.
     */
    Map<String, DisabledDestination> disabledDestinations();
}

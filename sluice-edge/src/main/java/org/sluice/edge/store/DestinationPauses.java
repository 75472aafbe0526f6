package org.sluice.edge.store;

import java.util.Set;

/**
 * Which destinations an operator has paused: control state, kept durably by the store. The
 * dispatcher asks on every pass, so reads are answered from memory once the set is read.
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
     * Whether {@code destination} may be paused, from memory only (no read, no lock): true
     * when paused, and also when the paused set has not been read since the store opened.
     */
    boolean mayBePaused(String destination);
}

package org.sluice.edge.store.rocks;

import java.util.Map;
import java.util.Set;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;

/**
 * A face of the store that answers for the held destinations with the one {@link RocksPauses}
 * the store keeps: the delivery ledger (the dispatcher asks it every pass) and the control
 * state (operators change it) both do, so that a pause made through either is seen by both
 * at once. Each question is forwarded here, once for both.
 */
interface SharedPauses extends DestinationPauses {

    /** The store's held destinations; the same object for the ledger and the control state. */
    DestinationPauses pauses();

    @Override
    default void setPaused(String destination, boolean paused, long nowMillis) {
        pauses().setPaused(destination, paused, nowMillis);
    }

    @Override
    default Set<String> pausedDestinations() {
        return pauses().pausedDestinations();
    }

    @Override
    default boolean mayBePaused(String destination) {
        return pauses().mayBePaused(destination);
    }

    @Override
    default void setDisabled(String destination, DisabledDestination disabled, long nowMillis) {
        pauses().setDisabled(destination, disabled, nowMillis);
    }

    @Override
    default Map<String, DisabledDestination> disabledDestinations() {
        return pauses().disabledDestinations();
    }

    @Override
    default Map<String, Long> failingSince() {
        return pauses().failingSince();
    }

    @Override
    default void setFailingSince(String destination, long sinceMillis, long nowMillis) {
        pauses().setFailingSince(destination, sinceMillis, nowMillis);
    }
}

package org.sluice.edge.delivery;

import java.util.Map;
import org.sluice.edge.store.ControlState;

/**
 * Where the dispatcher writes the audit record of a change it made on its own: a destination
 * disabled after failing for its {@code disable_after} (action {@code disable}, actor
 * {@value ControlState#SLUICE_ACTOR}). Unlike {@link DeliveryEvents} it may do I/O (an fsync,
 * a broker's acknowledgement): it is called on the dispatcher's pass, right after the change
 * is stored, never on a transport's thread.
 */
@FunctionalInterface
public interface DeliveryAudit {

    /** Records nothing. */
    DeliveryAudit NONE = (action, before, after) -> { };

    /** Records {@code action} on a destination with its state before and after (JSON-shaped maps). */
    void record(String action, Map<String, Object> before, Map<String, Object> after);

    /** The audit trail of {@code control}, with {@value ControlState#SLUICE_ACTOR} as the actor of every record. */
    static DeliveryAudit of(ControlState control) {
        java.util.Objects.requireNonNull(control, "control");
        return (action, before, after) -> {
            try (ControlState.ActorScope scope = control.actingAs(ControlState.SLUICE_ACTOR)) {
                control.record(action, null, before, after);
            }
        };
    }
}

package org.sluice.edge.store;

import java.util.List;
import java.util.Optional;

/**
 * The delivery state of a whole fleet, for the admin API, where a node's own store holds only
 * its share of the deliveries ({@code store.kind: kafka}, docs/fleet-log.md): the fleet's dead
 * letters, a redelivery from any node whichever node accepted or gave up the hook, and how
 * much the fleet has not finished yet. Implementations are thread-safe; a read or write the
 * log cannot serve now throws {@link HookStoreException}.
 */
public interface FleetDeliveries {

    /**
     * One page of the fleet's dead letters, in hook id order (the ids are UUIDv7: time order),
     * for {@code destination} or all (null), after hook {@code afterId} (null: from the first).
     * A page never ends inside one hook.
     *
     * @throws IllegalArgumentException when {@code afterId} is not a hook id
     */
    DeadLetterPage deadLetters(String destination, String afterId, int limit);

    /** The fleet's dead letters to {@code destination} known now. */
    long deadCount(String destination);

    /**
     * The hook's dead deliveries as the fleet's dead letters keep them, by destination name
     * (state dead, with reason, attempts, last status and error, time of death); empty when
     * the fleet holds no dead letter of this id (or it is not an id). A delivery that was
     * delivered or is still pending leaves no dead letter, so it is not among them.
     */
    List<DeliveryRow> deadDeliveriesOf(String hookId);

    /**
     * The destinations the hook has a delivery to, as far as the fleet's log knows (its dead
     * letters, and the destinations its record on the hooks log names while that holds it);
     * empty when the log knows no hook with this id.
     */
    Optional<List<String>> destinationsOf(String hookId);

    /**
     * Makes the hook's deliveries to {@code destinations} pending again for the whole fleet:
     * attempts from 1, due now, delivered by whichever node owns the hook's share of the log;
     * their dead letters are removed. Answered once the log acknowledged it.
     *
     * @return the deliveries scheduled, or empty when the log knows no hook with this id
     */
    Optional<Integer> redeliver(String hookId, List<String> destinations);

    /**
     * Records of the log the fleet has not finished with yet, all destinations together
     * (the delivery group's lag: from each partition's committed offset to its end), or -1
     * when it cannot be read now.
     */
    long unfinishedRecords();
}

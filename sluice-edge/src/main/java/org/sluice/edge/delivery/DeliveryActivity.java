package org.sluice.edge.delivery;

import java.util.Optional;

/**
 * What the dispatcher is doing per destination right now (its {@link DestinationActivity}),
 * read by the admin API. The stored side of a destination (pending, dead, oldest pending)
 * is the ledger's {@link org.sluice.edge.store.DestinationBacklog}.
 */
@FunctionalInterface
public interface DeliveryActivity {

    /** The figures of {@code destination}, or empty when no such destination is configured. */
    Optional<DestinationActivity> of(String destination);
}

package org.sluice.edge.delivery;

import java.util.Optional;

/** Live figures per destination, read by the admin API and the metrics. */
@FunctionalInterface
public interface DeliveryStatus {

    /** The figures of {@code destination}, or empty when no such destination is configured. */
    Optional<DestinationLive> live(String destination);
}

package org.sluice.edge.delivery;

import java.time.InstantSource;
import java.util.List;
import org.sluice.edge.delivery.targets.Target;

/**
 * Builds the transport of one kind of target. The dispatcher asks once per kind in use and
 * registers each of that kind's destinations with what it gets; the server's assembly
 * implements it, with one case per kind, so this package never names a transport's room.
 */
@FunctionalInterface
public interface TransportFactory {

    /**
     * A new transport for {@code kind}, not yet registered with any destination.
     *
     * @param destinations every configured destination of {@code kind} (at least one)
     * @param wall         wall-clock time for the attempts' headers
     */
    Transport make(Target.Kind kind, List<Destination> destinations, InstantSource wall);
}

package org.sluice.edge.delivery;

import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.sluice.edge.delivery.targets.Target;

/**
 * The transports of one dispatcher: one per kind of {@link Target} in use, each made once
 * by the {@link TransportFactory} it was given and registered with every destination of
 * its kind. Names no transport's room: the factory does.
 */
final class Transports implements AutoCloseable {

    private final Map<Target.Kind, Transport> byKind = new EnumMap<>(Target.Kind.class);

    /**
     * Makes and registers a transport for every kind of target among {@code destinations};
     * on a failure, closes what was made and rethrows.
     */
    Transports(List<Destination> destinations, InstantSource wall, TransportFactory factory) {
        try {
            for (Destination d : destinations) {
                byKind.computeIfAbsent(d.target().kind(), kind -> factory.make(kind,
                        destinations.stream().filter(o -> o.target().kind() == kind).toList(), wall)).register(d);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The transport of {@code destination}'s kind. */
    Transport of(Destination destination) {
        Transport t = byKind.get(destination.target().kind());
        if (t == null) {
            throw new IllegalArgumentException("destination " + destination.name() + " has no transport");
        }
        return t;
    }

    /** {@link Transport#flush()} of every transport. */
    void flush() {
        byKind.values().forEach(Transport::flush);
    }

    @Override
    public void close() {
        byKind.values().forEach(Transport::close);
    }
}

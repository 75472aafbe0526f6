package org.sluice.edge.delivery;

import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.http.HttpTarget;
import org.sluice.edge.delivery.kafka.KafkaTarget;
import org.sluice.edge.delivery.kafka.KafkaTransport;
import org.sluice.edge.delivery.nats.NatsTarget;
import org.sluice.edge.delivery.nats.NatsTransport;

/**
 * The transports of one dispatcher: one per kind of {@link Target} in use, each built once
 * and registered with every destination of its kind. The one place in this package that
 * names the transports' rooms, where each is built ({@link Build}).
 */
final class Transports implements AutoCloseable {

    private final Map<String, Transport> byType = new LinkedHashMap<>();

    /**
     * Builds and registers a transport for every kind of target among {@code destinations};
     * on a failure, closes what was built and rethrows.
     *
     * @param httpLoops event loops the HTTP client may borrow, or null for loops of its own
     */
    Transports(List<Destination> destinations, InstantSource wall, ClientLoops httpLoops) {
        Build build = new Build(destinations, wall, httpLoops);
        try {
            for (Destination d : destinations) {
                byType.computeIfAbsent(d.type(), type -> d.target().accept(build)).register(d);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The transport of each kind of target, built for all of {@code destinations}. */
    private record Build(List<Destination> destinations, InstantSource wall, ClientLoops httpLoops)
            implements Target.Cases<Transport> {

        @Override
        public Transport http(HttpTarget http) {
            return HttpDeliveryClient.forDestinations(destinations, httpLoops, wall);
        }

        @Override
        public Transport kafka(KafkaTarget kafka) {
            return new KafkaTransport();
        }

        @Override
        public Transport nats(NatsTarget nats) {
            return new NatsTransport();
        }
    }

    /** The transport of {@code destination}'s type. */
    Transport of(Destination destination) {
        Transport t = byType.get(destination.type());
        if (t == null) {
            throw new IllegalArgumentException("destination " + destination.name() + " has no transport");
        }
        return t;
    }

    /** {@link Transport#flush()} of every transport. */
    void flush() {
        byType.values().forEach(Transport::flush);
    }

    @Override
    public void close() {
        byType.values().forEach(Transport::close);
    }
}

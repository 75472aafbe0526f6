package org.sluice.edge.delivery;

import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transports of one dispatcher: one per destination type in use, each built once and
 * registered with every destination of its type.
 */
final class Transports implements AutoCloseable {

    private final Map<String, Transport> byType = new LinkedHashMap<>();

    /**
     * Builds and registers a transport for every type among {@code destinations}; on a
     * failure, closes what was built and rethrows.
     */
    Transports(List<Destination> destinations, InstantSource wall, ClientLoops httpLoops) {
        try {
            for (Destination d : destinations) {
                byType.computeIfAbsent(d.type(), type -> create(type, destinations, wall, httpLoops)).register(d);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * {@code httpLoops}: event loops the HTTP client may borrow, or null for loops of its own
     * (1 or 2). It borrows them only when no destination is {@code https}: a TLS handshake
     * takes a millisecond or more of CPU, and a destination that closes every connection
     * would make one per attempt; on loops of its own those never hold an ingest loop.
     */
    private static Transport create(String type, List<Destination> destinations, InstantSource wall, ClientLoops httpLoops) {
        switch (type) {
            case Destination.TYPE_HTTP:
                if (httpLoops != null && destinations.stream().noneMatch(Transports::https)) {
                    return new HttpDeliveryClient(httpLoops, wall);
                }
                long http = destinations.stream().filter(d -> Destination.TYPE_HTTP.equals(d.type())).count();
                return new HttpDeliveryClient((int) Math.min(2, http), wall);
            case Destination.TYPE_NATS:
                return new NatsTransport();
            case Destination.TYPE_KAFKA:
                return new KafkaTransport();
            default:
                throw new IllegalArgumentException("destinations: no transport delivers type " + type);
        }
    }

    private static boolean https(Destination d) {
        return Destination.TYPE_HTTP.equals(d.type()) && "https".equalsIgnoreCase(d.url().getScheme());
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

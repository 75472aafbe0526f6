package org.sluice.edge.server;

import java.time.InstantSource;
import java.util.List;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.delivery.TransportFactory;
import org.sluice.edge.delivery.http.ClientLoops;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.kafka.KafkaTransport;
import org.sluice.edge.delivery.nats.NatsTransport;
import org.sluice.edge.delivery.targets.Target;
import org.sluice.edge.netio.IoTransport;
import org.sluice.edge.telemetry.Telemetry;

/**
 * The one place that names every transport's room: the transport of each kind of target,
 * chosen by an exhaustive {@code switch} (a new {@link Target.Kind} does not compile until
 * it has its case here). The dispatcher asks it once per kind in use.
 *
 * @param ioTransport the Netty transport of the HTTP client's loops when it makes its own ({@code http.transport})
 * @param httpLoops   event loops the HTTP client may borrow (the server's ingest loops), or null for loops of its own
 * @param telemetry   traces each attempt when tracing is on (a span, and the {@code traceparent} it carries)
 */
record DeliveryTransports(IoTransport ioTransport, ClientLoops httpLoops, Telemetry telemetry) implements TransportFactory {

    @Override
    public Transport make(Target.Kind kind, List<Destination> destinations, InstantSource wall) {
        return telemetry.traced(switch (kind) {
            case HTTP -> HttpDeliveryClient.forDestinations(destinations, ioTransport, httpLoops, wall);
            case KAFKA -> new KafkaTransport();
            case NATS -> new NatsTransport();
        }, kind);
    }
}

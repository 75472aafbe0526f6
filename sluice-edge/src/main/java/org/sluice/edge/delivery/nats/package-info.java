/**
 * The {@code type: nats} transport: the reader of a destination's
 * {@link org.sluice.edge.delivery.targets.NatsTarget} (servers, subject, credentials)
 * ({@link org.sluice.edge.delivery.nats.NatsReader}) and the JetStream publisher
 * ({@link org.sluice.edge.delivery.nats.NatsTransport}, with its headers written in wire
 * form by {@code NatsWireHeaders}). No NATS client type is seen outside this package.
 *
 * <p>May use {@code delivery} (the seam), {@code delivery.targets}, {@code delivery.broker}, {@code store} (the hook an
 * attempt carries), {@code settings} and the NATS client; not the other transport rooms
 * (ArchitectureTest).
 */
package org.sluice.edge.delivery.nats;

/**
 * What the broker rooms ({@code delivery.kafka}, {@code delivery.nats}) share: the table of
 * attempts out with its deadline sweep and close ({@link
 * org.sluice.edge.delivery.broker.AttemptsOut}), the common part of their config readers
 * ({@link org.sluice.edge.delivery.broker.BrokerReader}) and their daemon threads
 * ({@link org.sluice.edge.delivery.broker.BrokerThreads}).
 *
 * <p>May use {@code delivery} (the seam), {@code delivery.targets}, {@code settings} and the JDK; knows neither broker
 * nor any transport room, and only {@code delivery.kafka} and {@code delivery.nats} use it
 * (ArchitectureTest).
 */
package org.sluice.edge.delivery.broker;

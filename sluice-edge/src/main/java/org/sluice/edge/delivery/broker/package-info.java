/**
 * What the broker rooms ({@code delivery.kafka}, {@code delivery.nats}) share: the table of
 * attempts out with its deadline sweep and close ({@link
 * org.sluice.edge.delivery.broker.AttemptsOut}), the common part of their config readers
 * ({@link org.sluice.edge.delivery.broker.BrokerReader}) and their daemon threads. May use
 * {@code delivery} (the seam), {@code settings} and the JDK; knows neither broker.
 */
package org.sluice.edge.delivery.broker;

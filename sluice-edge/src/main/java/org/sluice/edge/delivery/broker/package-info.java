/**
 * What the broker transports ({@code delivery.kafka}, {@code delivery.nats}) share: the
 * table of attempts out with its deadline sweep and close ({@link
 * org.sluice.edge.delivery.broker.AttemptsOut}), and their daemon threads. May use
 * {@code delivery} (the transport seam) and the JDK; knows neither broker.
 */
package org.sluice.edge.delivery.broker;

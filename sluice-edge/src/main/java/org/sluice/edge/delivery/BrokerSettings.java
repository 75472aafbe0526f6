package org.sluice.edge.delivery;

/**
 * The part of a destination's settings only its broker transport reads
 * ({@code bootstrap_servers}, {@code topic}, {@code servers}, ...). An {@code http}
 * destination has none.
 */
public interface BrokerSettings {
}

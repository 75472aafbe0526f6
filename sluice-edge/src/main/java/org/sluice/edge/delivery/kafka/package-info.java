/**
 * The {@code type: kafka} transport: a destination's
 * {@link org.sluice.edge.delivery.kafka.KafkaTarget} (brokers, topic, key, producer settings),
 * its reader ({@link org.sluice.edge.delivery.kafka.KafkaReader}) and the idempotent producer
 * per destination ({@link org.sluice.edge.delivery.kafka.KafkaTransport}). No Kafka type is
 * seen outside this package.
 *
 * <p>May use {@code delivery} (the seam), {@code delivery.broker}, {@code store} (the hook an
 * attempt carries), {@code settings} and the Kafka client; not the other transport rooms
 * (ArchitectureTest).
 */
package org.sluice.edge.delivery.kafka;

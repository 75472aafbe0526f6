/**
 * The {@code type: kafka} transport: the reader of a destination's
 * {@link org.sluice.edge.delivery.targets.KafkaTarget} (brokers, topic, key, producer settings)
 * ({@link org.sluice.edge.delivery.kafka.KafkaReader}) and the idempotent producer
 * per destination ({@link org.sluice.edge.delivery.kafka.KafkaTransport}). No Kafka type is
 * seen outside this package.
 *
 * <p>May use {@code delivery} (the seam), {@code delivery.targets}, {@code delivery.broker}, {@code store} (the hook an
 * attempt carries), {@code settings} and the Kafka client; not the other transport rooms
 * (ArchitectureTest).
 */
package org.sluice.edge.delivery.kafka;

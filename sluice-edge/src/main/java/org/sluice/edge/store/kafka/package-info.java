/**
 * The fleet's log on Kafka ({@code store.kind: kafka}, docs/fleet-log.md): the hooks topic's
 * record format ({@link org.sluice.edge.store.kafka.HookRecords}), the store that writes
 * accepted hooks to it and reads them back, and the fleet's control state on the compacted
 * control topic ({@link org.sluice.edge.store.kafka.KafkaControlState}, its records in
 * {@code ControlRecords}, its follower thread and its in-memory view).
 *
 * <p>May use: the store seam, sluice-core, Kafka's client. Only {@code server} names it.
 */
package org.sluice.edge.store.kafka;

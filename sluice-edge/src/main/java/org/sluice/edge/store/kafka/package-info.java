/**
 * The fleet's log on Kafka ({@code store.kind: kafka}, docs/fleet-log.md): the hooks topic's
 * record format ({@link org.sluice.edge.store.kafka.HookRecords}) and the store that writes
 * accepted hooks to it and reads them back.
 *
 * <p>May use: the store seam, sluice-core, Kafka's client. Only {@code server} names it.
 */
package org.sluice.edge.store.kafka;

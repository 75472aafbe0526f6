/**
 * The fleet's log on Kafka ({@code store.kind: kafka}, docs/fleet-log.md): the hooks topic's
 * record format ({@link org.sluice.edge.store.kafka.HookRecords}) and the log that writes
 * accepted hooks to it and reads them back ({@link org.sluice.edge.store.kafka.KafkaHookLog},
 * a {@code HookLog}, opened with {@link org.sluice.edge.store.kafka.KafkaLogSettings}). Inside:
 * the node's Kafka clients ({@code LogClients}: one shared idempotent producer), the hooks
 * topic made and checked ({@code LogTopics}), the watch that says whether the log can take
 * hooks now ({@code LogWatch}), and the lookup of a hook by id ({@code HookFinder}). The
 * metrics are the server's, told through {@link org.sluice.edge.store.kafka.ProduceListener}.
 *
 * <p>May use: the store seam, sluice-core, Kafka's client, SLF4J. Only {@code server} names it.
 */
package org.sluice.edge.store.kafka;

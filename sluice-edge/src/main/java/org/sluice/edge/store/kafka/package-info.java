/**
 * The fleet's log on Kafka ({@code store.kind: kafka}, docs/fleet-log.md): the hooks topic's
 * record format ({@link org.sluice.edge.store.kafka.HookRecords}) and the store that writes
 * accepted hooks to it and reads them back; the fleet's control state on the compacted
 * control topic ({@link org.sluice.edge.store.kafka.KafkaControlState}, its records in
 * {@code ControlRecords}, its follower thread and its in-memory view); and the delivery side:
 * the {@link org.sluice.edge.store.kafka.LogFollower}, which copies the share of the log the
 * delivery group assigns the node into its {@link org.sluice.edge.store.WorkingSet} and
 * commits offsets only past finished hooks, with the retry ({@code RetryRecords},
 * {@code RetryMoves}) and dead-letter ({@code DeadLetters}) topics it writes.
 *
 * <p>May use: the store seam, sluice-core, Kafka's client, SLF4J. Only {@code server} names it.
 */
package org.sluice.edge.store.kafka;

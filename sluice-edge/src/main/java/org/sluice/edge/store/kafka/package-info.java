/**
 * The fleet's log on Kafka ({@code store.kind: kafka}, docs/fleet-log.md): the hooks topic's
 * record format ({@link org.sluice.edge.store.kafka.HookRecords}); the log that writes
 * accepted hooks to it and reads them back ({@link org.sluice.edge.store.kafka.KafkaHookLog},
 * a {@code HookLog}, opened with {@link org.sluice.edge.store.kafka.KafkaLogSettings}), with
 * the node's Kafka clients ({@code LogClients}: one shared idempotent producer), the hooks
 * topic made and checked ({@code LogTopics}), the watch that says whether the log can take
 * hooks now ({@code LogWatch}), the lookup of a hook by id ({@code HookFinder}) and the
 * listing of the fleet's hooks by id ({@code HookPages}), which read the log through one
 * {@code LogAccess} (its settings, the node's clients, the wall clock), its
 * metrics told through {@link org.sluice.edge.store.kafka.ProduceListener}; the names of
 * its topics and group, spelled once ({@link org.sluice.edge.store.kafka.TopicNames}, which
 * the log's and the follower's settings implement); the fleet's
 * control state on the compacted control topic
 * ({@link org.sluice.edge.store.kafka.KafkaControlState}, its records in {@code ControlRecords},
 * its follower thread and its in-memory view); and the delivery side: the
 * {@link org.sluice.edge.store.kafka.LogFollower}, which copies the share of the log the
 * delivery group assigns the node (each topic spread evenly by
 * {@link org.sluice.edge.store.kafka.TopicSpreadAssignor}) into its
 * {@link org.sluice.edge.store.WorkingSet} and commits offsets only past finished hooks
 * (what its thread publishes in {@code FollowerPublished}), with the retry ({@code RetryRecords},
 * {@code RetryMoves}) and dead-letter ({@code DeadLetters}) topics it writes (the writes it
 * sends without waiting, settled each pass by {@code AnsweredSends}); and the
 * fleet-wide admin side ({@link org.sluice.edge.store.kafka.KafkaFleetDeliveries}, a
 * {@code FleetDeliveries}): every node's index of the dead letters ({@code DeadLetterIndex}),
 * redeliveries through the retry topic, and the delivery group's lag ({@code GroupLag}); and
 * replays, a reader of the hooks topic over a time range that copies its hooks into the working
 * set ({@code LogReplay}, the {@link org.sluice.edge.store.ReplaySource} of this kind).
 *
 * <p>May use: the store seam, sluice-core, Kafka's client, SLF4J. Only {@code server} names it.
 */
package org.sluice.edge.store.kafka;

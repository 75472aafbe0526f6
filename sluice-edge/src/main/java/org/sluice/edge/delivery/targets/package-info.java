/**
 * The closed set of places a destination's attempts go: the sealed
 * {@link org.sluice.edge.delivery.targets.Target} and its records
 * {@link org.sluice.edge.delivery.targets.HttpTarget},
 * {@link org.sluice.edge.delivery.targets.KafkaTarget} and
 * {@link org.sluice.edge.delivery.targets.NatsTarget}, each naming its
 * {@link org.sluice.edge.delivery.targets.Target.Kind}, which code that acts per kind reads in
 * an exhaustive {@code switch}.
 *
 * <p>Here, not in the transports' rooms, because on Java 17's class path a sealed type's
 * permitted records must share its package. Only the records' validation and the text each
 * fills in (a topic, a subject) live here; each kind's reader and transport stay in its room.
 *
 * <p>Named {@code targets}, not {@code target}: git ignores every directory called
 * {@code target} (Maven's output), and would silently leave a new record out of a commit.
 *
 * <p>Uses the JDK only; {@code delivery}, the transport rooms, {@code config} and
 * {@code server} use it (ArchitectureTest).
 */
package org.sluice.edge.delivery.targets;

package org.sluice.edge.delivery;

import org.sluice.edge.delivery.http.HttpTarget;
import org.sluice.edge.delivery.kafka.KafkaTarget;
import org.sluice.edge.delivery.nats.NatsTarget;

/**
 * Where a destination's attempts go, with the settings only that way needs: an HTTP(S)
 * endpoint ({@link HttpTarget}), a Kafka topic ({@link KafkaTarget}) or a NATS JetStream
 * subject ({@link NatsTarget}). Each is a record in its transport's own room
 * ({@code delivery.http}, {@code delivery.kafka}, {@code delivery.nats}), next to the
 * transport that reads it and the config reader that makes it.
 *
 * <h2>A closed set, read through {@link Cases}</h2>
 * The set of targets is closed, and code that does something per kind of target says so
 * for every kind: it implements {@link Cases}, one method per target, and asks
 * {@link #accept}. Adding a kind adds a method to {@link Cases}, and the compiler then
 * names every place that must handle it.
 *
 * <p>Why not {@code sealed} with an exhaustive {@code switch}: the project compiles with
 * {@code --release 17}, where a {@code switch} over types is a preview feature (JEP 406;
 * final in Java 21), so no {@code switch} can be checked exhaustive. And a sealed type whose
 * permitted records sit in other packages needs a named module; sluice-edge is on the class
 * path (unnamed module), where every permitted subclass must be in the sealed type's own
 * package, which would take each target out of its transport's room. The visitor gives the
 * same compile-time check (a missing case does not compile) and keeps each kind in its
 * room. On Java 21 this becomes {@code sealed ... permits HttpTarget, KafkaTarget,
 * NatsTarget} (with a module) and each {@link Cases} a pattern {@code switch}.
 */
public interface Target {

    /** The destination's {@code type} as configured: {@code http}, {@code kafka} or {@code nats}. */
    String type();

    /**
     * Every secret this target's settings hold (URL user info and passwords, tokens,
     * credentials, SASL settings), as text that may turn up in a client's error message:
     * {@link SecretRedactor} masks each.
     */
    java.util.List<String> secrets();

    /** Calls the method of {@code cases} for this kind of target. */
    <R> R accept(Cases<R> cases);

    /** Something done per kind of target: one method per kind, so that none is forgotten. */
    interface Cases<R> {

        R http(HttpTarget http);

        R kafka(KafkaTarget kafka);

        R nats(NatsTarget nats);
    }
}

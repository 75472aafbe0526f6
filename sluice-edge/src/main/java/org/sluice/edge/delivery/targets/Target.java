package org.sluice.edge.delivery.targets;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * Where a destination's attempts go, with the settings only that way needs: an HTTP(S)
 * endpoint ({@link HttpTarget}), a Kafka topic ({@link KafkaTarget}) or a NATS JetStream
 * subject ({@link NatsTarget}).
 *
 * <h2>A closed set, read with an exhaustive switch</h2>
 * The set is sealed, and each target names its {@link Kind}. Code that does something per
 * kind switches over {@link #kind()} in a {@code switch} <em>expression</em> without a
 * {@code default}: javac refuses one that misses a constant, so adding a kind (one record
 * here, one {@code permits} entry, one constant) makes the compiler name every place that
 * must handle it (the server's transport factory, the config's reader choice). Where a
 * transport needs its own target's fields, {@code Destination.target(Class)} is the one
 * checked cast.
 *
 * <p>Why the records live here and not in their transport's room: the project compiles with
 * {@code --release 17}, where a {@code switch} over types is a preview feature (final in
 * Java 21), and on the class path (the unnamed module) a sealed type's permitted subclasses
 * must sit in its own package. So this package holds the closed set and nothing else: the
 * records, their validation and the text each fills in. It uses only the JDK; the
 * dispatcher's package and every transport room use it, and the readers and transports
 * stay in their rooms.
 */
public sealed interface Target permits HttpTarget, KafkaTarget, NatsTarget {

    /** The kinds of target, one per permitted record, in the order config messages list them. */
    enum Kind {
        HTTP,
        KAFKA,
        NATS;

        /** The destination's {@code type} as configured: {@code http}, {@code kafka} or {@code nats}. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Which of the closed set this is: what a {@code switch} reads. */
    Kind kind();

    /** The destination's {@code type} as configured: {@code http}, {@code kafka} or {@code nats}. */
    default String type() {
        return kind().configName();
    }

    /**
     * Every secret this target's settings hold (URL user info and passwords, tokens,
     * credentials, SASL settings), as text that may turn up in a client's error message:
     * the delivery package's {@code SecretRedactor} masks each.
     */
    List<String> secrets();

    /**
     * The secrets in a URL's user info: the whole of it, the password (after the first
     * colon) and, percent-decoded, both; none when it has no user info or is not a URL.
     */
    static List<String> userInfoSecrets(String url) {
        try {
            String info = new URI(url).getRawUserInfo();
            if (info == null) {
                return List.of();
            }
            int colon = info.indexOf(':');
            return colon < 0 ? List.of(info) : List.of(info, info.substring(colon + 1));
        } catch (URISyntaxException e) {
            int at = url.lastIndexOf('@');
            int start = url.indexOf("://");
            return at > start + 3 && start >= 0 ? List.of(url.substring(start + 3, at)) : List.of();
        }
    }
}

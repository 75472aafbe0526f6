package org.sluice.edge.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.delivery.kafka.KafkaReader;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Reads {@code store:} into a {@link StoreConfig}: the local bound, the kind, and under
 * {@code kind: kafka} the fleet log's settings. Every problem is recorded with its key path
 * and value; {@code properties} values are never printed.
 */
final class StoreReader {

    static final List<String> STORE = List.of("max_bytes", "kind", "kafka");
    static final List<String> KAFKA = List.of("bootstrap_servers", "topic_prefix", "partitions", "replication_factor",
            "linger_ms", "timeout_ms", "properties");
    /** Kafka's topic characters. */
    static final Pattern TOPIC_CHARS = Pattern.compile("[A-Za-z0-9._-]+");
    static final int MAX_PARTITIONS = 100_000;
    static final long MAX_LINGER_MS = 60_000;
    static final long MAX_TIMEOUT_MS = 3_600_000;
    private static final String OWNED_WHY = "use store.kafka's own keys: bootstrap_servers, linger_ms, timeout_ms;"
            + " idempotence and acks=all are the log's contract, and its consumer group is <topic_prefix>.delivery";

    private StoreReader() {
    }

    static StoreConfig read(Section root) {
        Section s = root.section("store", STORE);
        long maxBytes = s.integer("max_bytes", 0L, 0L, Long.MAX_VALUE);
        StoreConfig.Kind kind = s.choice("kind", StoreConfig.Kind.ROCKSDB);
        StoreConfig.Kafka kafka = null;
        if (s.has("kafka") || kind == StoreConfig.Kind.KAFKA) { // written settings are checked under either kind
            kafka = kafka(s.section("kafka", KAFKA));
        }
        if (kind == StoreConfig.Kind.KAFKA && kafka != null) {
            return new StoreConfig(maxBytes, kind, Optional.of(kafka));
        }
        return new StoreConfig(maxBytes); // also after a problem in store.kafka: the boot fails on it anyway
    }

    /** The settings, or null after recording at least one problem. */
    private static StoreConfig.Kafka kafka(Section k) {
        int before = k.problems().size();
        List<String> servers = KafkaReader.servers(k);
        String prefix = topicPrefix(k);
        int partitions = k.integer("partitions", StoreConfig.Kafka.DEFAULT_PARTITIONS, 1, MAX_PARTITIONS);
        int replication = k.integer("replication_factor", StoreConfig.Kafka.DEFAULT_REPLICATION_FACTOR, 1,
                Short.MAX_VALUE);
        long linger = k.integer("linger_ms", StoreConfig.Kafka.DEFAULT_LINGER_MS, 0L, MAX_LINGER_MS);
        long timeout = k.integer("timeout_ms", StoreConfig.Kafka.DEFAULT_TIMEOUT_MS, 1L, MAX_TIMEOUT_MS);
        if (k.problems().size() == before && linger >= timeout) {
            k.problem(k.pathOf("linger_ms") + " must be less than " + k.pathOf("timeout_ms") + " (" + timeout
                    + "), got " + linger);
        }
        Map<String, String> properties = KafkaReader.properties(k, StoreConfig.Kafka.OWNED_PROPERTIES, OWNED_WHY);
        if (k.problems().size() != before || servers == null || prefix == null || properties == null) {
            return null;
        }
        return new StoreConfig.Kafka(servers, prefix, partitions, replication, linger, timeout, properties);
    }

    private static String topicPrefix(Section k) {
        String text = k.string("topic_prefix", StoreConfig.Kafka.DEFAULT_TOPIC_PREFIX);
        if (!k.has("topic_prefix")) {
            return text;
        }
        int max = StoreConfig.Kafka.maxPrefixChars();
        if (Values.string(k.raw("topic_prefix")) == null) {
            return null; // not a string: recorded by string()
        }
        if (!TOPIC_CHARS.matcher(text).matches() || text.length() > max) {
            k.problem(k.pathOf("topic_prefix") + " must be 1 to " + max + " characters from A-Z a-z 0-9 . _ - (Kafka's"
                    + " topic characters; the longest topic, <topic_prefix>.control, must stay within "
                    + StoreConfig.Kafka.MAX_TOPIC_CHARS + "), got " + Values.render(k.raw("topic_prefix")));
            return null;
        }
        return text;
    }

    /**
     * Under {@code store.kind: kafka} a source with a dedupe key needs {@code dedupe.scope:
     * fleet}: the log keeps no index of keys, so only the fleet's claim finds a copy.
     */
    static void dedupeChecks(StoreConfig store, DedupeConfig dedupe, Map<String, SourceConfig> sources,
                             Section root) {
        if (store.kind() != StoreConfig.Kind.KAFKA || dedupe.scope() == DedupeScope.FLEET) {
            return;
        }
        for (SourceConfig source : sources.values()) {
            if (source.dedupe().kind() != DedupeSpec.Kind.NONE) {
                root.problem(Paths.child(Paths.child("sources", source.id()), "dedupe") + " needs dedupe.scope: fleet"
                        + " under store.kind: kafka (the log keeps no index of dedupe keys: only the fleet's claim in"
                        + " Redis finds a copy another node accepted), got dedupe.scope: " + dedupe.scope().configName());
            }
        }
    }
}

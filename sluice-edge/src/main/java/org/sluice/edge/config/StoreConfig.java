package org.sluice.edge.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.sluice.edge.settings.ConfigWord;

/**
 * {@code store:} which store holds the accepted hooks, and bounds on the local one.
 *
 * @param maxBytes {@code store.max_bytes}: 0 for no bound; else, once the store's size
 *                 reaches it, new hooks are answered {@code 503 store_full} and
 *                 {@code /readyz} is 503, while delivery and retention go on
 * @param kind     {@code store.kind}, default {@link Kind#ROCKSDB}
 * @param kafka    {@code store.kafka}: present exactly when {@code kind} is {@link Kind#KAFKA}
 */
public record StoreConfig(long maxBytes, Kind kind, Optional<Kafka> kafka) {

    /** {@code store.kind}: where a 202 puts the hook. */
    public enum Kind implements ConfigWord {
        /** The embedded RocksDB store of this node (one node; the default). */
        ROCKSDB,
        /** The fleet's log on Kafka (docs/fleet-log.md). */
        KAFKA;
    }

    public StoreConfig {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(kafka, "kafka");
        if ((kind == Kind.KAFKA) != kafka.isPresent()) {
            throw new IllegalArgumentException("store.kafka must be present exactly when store.kind is kafka, got kind "
                    + kind.configName() + " and " + (kafka.isPresent() ? "settings" : "none"));
        }
    }

    /** The embedded RocksDB store with a size bound ({@code maxBytes} 0: none). */
    public StoreConfig(long maxBytes) {
        this(maxBytes, Kind.ROCKSDB, Optional.empty());
    }

    public static StoreConfig defaults() {
        return new StoreConfig(0);
    }

    /** True when a bound is set. */
    public boolean bounded() {
        return maxBytes > 0;
    }

    /**
     * {@code store.kafka:} the fleet's log. The topics and the consumer group Sluice owns
     * are named from {@code topicPrefix}: {@link #hooksTopic()}, {@link #controlTopic()},
     * {@link #deadTopic()}, {@link #retryTopic()}, {@link #deliveryGroup()}.
     *
     * @param bootstrapServers  {@code store.kafka.bootstrap_servers}: host:port of at least one broker
     * @param topicPrefix       {@code store.kafka.topic_prefix}, default {@value #DEFAULT_TOPIC_PREFIX}
     * @param partitions        {@code store.kafka.partitions}, default {@value #DEFAULT_PARTITIONS}: used when
     *                          Sluice creates its topics; an existing topic is checked against it
     * @param replicationFactor {@code store.kafka.replication_factor}, default {@value #DEFAULT_REPLICATION_FACTOR}
     * @param lingerMs          {@code store.kafka.linger_ms}, default {@value #DEFAULT_LINGER_MS}: the producer's
     *                          {@code linger.ms}
     * @param timeoutMs         {@code store.kafka.timeout_ms}, default {@value #DEFAULT_TIMEOUT_MS}: how long a
     *                          hook waits for the log's acknowledgement before it is answered 503
     * @param properties        {@code store.kafka.properties}: more client properties (TLS, SASL) for every
     *                          producer, consumer and admin client of the log; never names one of
     *                          {@link #OWNED_PROPERTIES}
     */
    public record Kafka(List<String> bootstrapServers, String topicPrefix, int partitions, int replicationFactor,
                        long lingerMs, long timeoutMs, Map<String, String> properties) {

        public static final String DEFAULT_TOPIC_PREFIX = "sluice";
        public static final int DEFAULT_PARTITIONS = 32;
        public static final int DEFAULT_REPLICATION_FACTOR = 3;
        public static final long DEFAULT_LINGER_MS = 2;
        public static final long DEFAULT_TIMEOUT_MS = 5000;
        /** Kafka's longest topic name. */
        public static final int MAX_TOPIC_CHARS = 249;
        /** The suffixes of the topics Sluice owns; the longest bounds the prefix. */
        public static final List<String> TOPIC_SUFFIXES = List.of(".hooks", ".control", ".dead", ".retry");
        /**
         * Client properties Sluice sets itself (the log's contract: idempotence, {@code acks=all},
         * its own timeouts and serialisers, its consumer group): {@code properties} may not name them.
         */
        public static final Set<String> OWNED_PROPERTIES = Set.of("bootstrap.servers", "key.serializer",
                "value.serializer", "key.deserializer", "value.deserializer", "enable.idempotence", "acks",
                "linger.ms", "delivery.timeout.ms", "request.timeout.ms", "max.block.ms", "transactional.id",
                "retries", "group.id");

        public Kafka {
            bootstrapServers = List.copyOf(bootstrapServers);
            Objects.requireNonNull(topicPrefix, "topicPrefix");
            properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        }

        /** The longest prefix that leaves room for every suffix within {@link #MAX_TOPIC_CHARS}. */
        public static int maxPrefixChars() {
            return MAX_TOPIC_CHARS - TOPIC_SUFFIXES.stream().mapToInt(String::length).max().orElseThrow();
        }

        /** {@code <topic_prefix>.hooks}: the log of accepted hooks. */
        public String hooksTopic() {
            return topicPrefix + ".hooks";
        }

        /** {@code <topic_prefix>.control}: fleet-wide control state (compacted). */
        public String controlTopic() {
            return topicPrefix + ".control";
        }

        /** {@code <topic_prefix>.dead}: reserved for delivery's dead letters. */
        public String deadTopic() {
            return topicPrefix + ".dead";
        }

        /** {@code <topic_prefix>.retry}: reserved for delivery's retries. */
        public String retryTopic() {
            return topicPrefix + ".retry";
        }

        /** {@code <topic_prefix>.delivery}: the consumer group delivering the hooks topic. */
        public String deliveryGroup() {
            return topicPrefix + ".delivery";
        }

        /** Never prints a property's value (it may be a password). */
        @Override
        public String toString() {
            return "Kafka[bootstrapServers=" + bootstrapServers + ", topicPrefix=" + topicPrefix + ", partitions="
                    + partitions + ", replicationFactor=" + replicationFactor + ", lingerMs=" + lingerMs
                    + ", timeoutMs=" + timeoutMs + ", properties=" + properties.keySet() + "]";
        }
    }
}

package org.sluice.edge.store.kafka;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the fleet's log needs to run: {@code store.kafka} as the config reader checked it, the
 * hooks' retention and the node's name. The server builds it from the configuration (the
 * store may not name the config package).
 *
 * @param nodeId            {@code node.id}: the log's clients are named {@code sluice-log-<nodeId>}
 * @param bootstrapServers  host:port of at least one broker
 * @param topicPrefix       the hooks topic is {@code <topicPrefix>.hooks}
 * @param partitions        partitions of a topic the log creates; an existing one is checked against it
 * @param replicationFactor replicas of a topic the log creates
 * @param lingerMs          the producer's {@code linger.ms}
 * @param timeoutMs         how long a hook waits for the log's acknowledgement; also bounds each
 *                          admin call and an id lookup
 * @param properties        more client properties (TLS, SASL), none of those the log sets itself
 * @param hooksRetentionMs  {@code retention.hooks_seconds} in ms: the hooks topic's {@code retention.ms},
 *                          and the age past which a read treats a hook as gone; also the retry topic's
 * @param deadRetentionMs   {@code retention.dead_seconds} in ms: the dead-letter topic's {@code retention.ms}
 */
public record KafkaLogSettings(String nodeId, List<String> bootstrapServers, String topicPrefix, int partitions,
                               int replicationFactor, long lingerMs, long timeoutMs, Map<String, String> properties,
                               long hooksRetentionMs, long deadRetentionMs) implements TopicNames {

    public KafkaLogSettings {
        Objects.requireNonNull(nodeId, "nodeId");
        bootstrapServers = List.copyOf(bootstrapServers);
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        if (bootstrapServers.isEmpty() || partitions < 1 || replicationFactor < 1 || replicationFactor > Short.MAX_VALUE
                || lingerMs < 0 || timeoutMs <= lingerMs || hooksRetentionMs < 1 || deadRetentionMs < 1) {
            throw new IllegalArgumentException("invalid log settings " + this);
        }
    }

    /** As the canonical constructor, with the dead letters kept as long as the hooks. */
    public KafkaLogSettings(String nodeId, List<String> bootstrapServers, String topicPrefix, int partitions,
                            int replicationFactor, long lingerMs, long timeoutMs, Map<String, String> properties,
                            long hooksRetentionMs) {
        this(nodeId, bootstrapServers, topicPrefix, partitions, replicationFactor, lingerMs, timeoutMs, properties,
                hooksRetentionMs, hooksRetentionMs);
    }

    /** Where the log is, for messages: its topic and brokers (no property values). */
    public String location() {
        return "kafka topic " + hooksTopic() + " on " + String.join(",", bootstrapServers);
    }

    /** Never prints a property's value (it may be a password). */
    @Override
    public String toString() {
        return "KafkaLogSettings[nodeId=" + nodeId + ", bootstrapServers=" + bootstrapServers + ", topicPrefix="
                + topicPrefix + ", partitions=" + partitions + ", replicationFactor=" + replicationFactor
                + ", lingerMs=" + lingerMs + ", timeoutMs=" + timeoutMs + ", properties=" + properties.keySet()
                + ", hooksRetentionMs=" + hooksRetentionMs + ", deadRetentionMs=" + deadRetentionMs + "]";
    }
}

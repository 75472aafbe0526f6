package org.sluice.edge.store.kafka;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * What {@link KafkaControlState} needs to reach its topic, {@code <topicPrefix>.control}:
 * the {@code store.kafka} keys it shares with the hooks log, taken as plain values so the
 * server's assembly fills it from the config.
 *
 * @param bootstrapServers  {@code store.kafka.bootstrap_servers}
 * @param topicPrefix       {@code store.kafka.topic_prefix}: the control topic is {@code <prefix>.control}
 * @param replicationFactor {@code store.kafka.replication_factor}, used when the topic is created
 * @param properties        {@code store.kafka.properties}: client settings (TLS, SASL) for the producer,
 *                          the consumer and the admin client; none of {@link #OWNED_PROPERTIES}
 * @param timeoutMs         {@code store.kafka.timeout_ms}: how long a change waits for the topic's acknowledgement
 * @param catchUpMs         how long the boot waits to have read the topic to its end ({@link #DEFAULT_CATCH_UP_MS})
 */
public record KafkaControlSettings(List<String> bootstrapServers, String topicPrefix, int replicationFactor,
                                   Map<String, String> properties, long timeoutMs, long catchUpMs) {

    /** The boot's wait for the control topic's end, when the assembly names none. */
    public static final long DEFAULT_CATCH_UP_MS = 30_000;

    /** Client settings the control state sets itself; {@code properties} may not name them. */
    public static final Set<String> OWNED_PROPERTIES = Set.of("bootstrap.servers", "key.serializer",
            "value.serializer", "key.deserializer", "value.deserializer", "acks", "enable.idempotence",
            "delivery.timeout.ms", "request.timeout.ms", "max.block.ms", "transactional.id", "retries",
            "linger.ms", "group.id", "enable.auto.commit", "auto.offset.reset", "isolation.level");

    public KafkaControlSettings {
        bootstrapServers = List.copyOf(bootstrapServers);
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        properties = Map.copyOf(properties);
        if (bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("store.kafka.bootstrap_servers must name at least one broker");
        }
        try {
            Topic.validate(TopicNames.control(topicPrefix));
        } catch (InvalidTopicException e) {
            throw new IllegalArgumentException("store.kafka.topic_prefix makes a topic name Kafka refuses, got \""
                    + topicPrefix + "\": " + e.getMessage(), e);
        }
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException("store.kafka.replication_factor must be at least 1, got " + replicationFactor);
        }
        for (String name : properties.keySet()) {
            if (OWNED_PROPERTIES.contains(name)) {
                throw new IllegalArgumentException("store.kafka.properties may not set " + name
                        + ": the control state sets it itself");
            }
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("store.kafka.timeout_ms must be at least 1, got " + timeoutMs);
        }
        if (catchUpMs < 1) {
            throw new IllegalArgumentException("the control topic's catch-up bound must be at least 1 ms, got " + catchUpMs);
        }
    }

    /** The settings with the default catch-up bound. */
    public static KafkaControlSettings of(List<String> bootstrapServers, String topicPrefix, int replicationFactor,
                                          Map<String, String> properties, long timeoutMs) {
        return new KafkaControlSettings(bootstrapServers, topicPrefix, replicationFactor, properties, timeoutMs,
                DEFAULT_CATCH_UP_MS);
    }

    /** {@code <prefix>.control}. */
    public String topic() {
        return TopicNames.control(topicPrefix);
    }
}

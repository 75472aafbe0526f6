package org.sluice.edge.store.kafka;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the control topic exists as the control state needs it: created when missing
 * (one partition, so every change has one place in one order; {@code cleanup.policy=compact};
 * the settings' replication factor; {@code min.insync.replicas} 2 from a replication factor
 * of 3 up, else 1; tombstones kept 7 days), and checked when present: exactly one partition
 * and a cleanup policy that compacts, else the boot fails naming the topic and the setting.
 */
final class ControlTopic {

    /** {@code delete.retention.ms} of a created topic: how long a resume or a removed override stays readable as a tombstone. */
    static final long TOMBSTONE_RETENTION_MS = TimeUnit.DAYS.toMillis(7);

    private static final Logger LOG = LoggerFactory.getLogger(ControlTopic.class);

    private ControlTopic() {
    }

    /** A control topic that exists but cannot serve (several partitions, not compacted). */
    static final class Misfit extends IllegalStateException {
        Misfit(String message) {
            super(message);
        }
    }

    static Admin admin(KafkaControlSettings settings, long timeoutMs) {
        Properties p = new Properties();
        p.putAll(settings.properties());
        ClientKeys.brokers(p, settings.bootstrapServers());
        ClientKeys.callTimeouts(p, timeoutMs);
        return Admin.create(p);
    }

    /**
     * Creates the topic when missing, then checks it, all before {@code deadlineNanos}
     * ({@link System#nanoTime}).
     *
     * @throws Misfit when the topic exists in a shape the control state cannot use
     * @throws ExecutionException when the brokers refuse a request
     * @throws TimeoutException   when the brokers do not answer in time
     */
    static void ensure(Admin admin, KafkaControlSettings settings, long deadlineNanos)
            throws ExecutionException, TimeoutException, InterruptedException {
        String topic = settings.topic();
        TopicDescription description = describe(admin, topic, left(deadlineNanos));
        if (description == null) {
            int rf = settings.replicationFactor();
            Map<String, String> configs = Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, rf >= 3 ? "2" : "1",
                    TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(TOMBSTONE_RETENTION_MS));
            try {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) rf).configs(configs))).all()
                        .get(left(deadlineNanos), TimeUnit.MILLISECONDS);
                LOG.info("created the control topic {} (1 partition, replication factor {}, compacted)", topic, rf);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            description = describe(admin, topic, left(deadlineNanos));
            if (description == null) {
                throw new ExecutionException(new UnknownTopicOrPartitionException(topic + " is not there after its creation"));
            }
        }
        if (description.partitions().size() != 1) {
            throw new Misfit("the control topic " + topic + " has " + description.partitions().size()
                    + " partitions; it needs exactly 1, so that every node reads all changes in one order");
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all()
                .get(left(deadlineNanos), TimeUnit.MILLISECONDS).get(resource);
        ConfigEntry policy = config == null ? null : config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
        String value = policy == null || policy.value() == null ? "" : policy.value();
        if (!Arrays.asList(value.split(",")).contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
            throw new Misfit("the control topic " + topic + " has cleanup.policy=" + value
                    + "; it needs compact, or pauses and overrides would age out");
        }
    }

    /** Milliseconds left until {@code deadlineNanos} ({@link System#nanoTime}), at least 1. */
    static long left(long deadlineNanos) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    private static TopicDescription describe(Admin admin, String topic, long timeoutMs)
            throws ExecutionException, TimeoutException, InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }
}

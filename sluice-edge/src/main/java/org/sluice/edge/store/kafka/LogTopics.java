package org.sluice.edge.store.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hooks topic as the log needs it: made when missing, checked when present, and probed
 * for whether a produce with {@code acks=all} can succeed now. Delivery's two topics are made
 * with it when missing: {@code <prefix>.retry} (hooks waiting for a distant retry,
 * {@code retention.ms} = {@code retention.hooks_seconds}) and {@code <prefix>.dead} (dead
 * letters, {@code retention.ms} = {@code retention.dead_seconds}), with the same partitions,
 * replication factor and {@code min.insync.replicas}; when they exist they are used as they
 * are.
 *
 * <p>Made with the settings' partitions and replication factor, {@code retention.ms} =
 * {@code retention.hooks_seconds}, {@code message.timestamp.type=CreateTime} (a record's
 * timestamp is its id's millisecond, which the id lookup relies on) and, with 3 replicas or
 * more, {@code min.insync.replicas=2}. A topic that exists is used as it is; what differs
 * from the settings is logged as a warning once: its partition count, a
 * {@code min.insync.replicas} below 2 with 3 replicas or more, {@code LogAppendTime}
 * timestamps (ids could then not be found by time), its retention.
 *
 * <p>Every call waits at most the settings' {@code timeout_ms}. Used by the log's watch
 * thread only.
 */
final class LogTopics {

    private static final Logger LOG = LoggerFactory.getLogger(LogTopics.class);

    private final KafkaLogSettings settings;

    LogTopics(KafkaLogSettings settings) {
        this.settings = settings;
    }

    /**
     * Makes the hooks topic when missing, else checks it (warnings logged), and returns its
     * {@code min.insync.replicas}.
     *
     * @throws Exception a Kafka error or a timeout: the log stays unavailable, and the watch tries again
     */
    int ensure(Admin admin) throws Exception {
        String topic = settings.hooksTopic();
        Optional<TopicDescription> existing = describe(admin, topic);
        if (existing.isEmpty()) {
            create(admin, topic, settings.hooksRetentionMs(), null);
        } else if (existing.get().partitions().size() != settings.partitions()) {
            LOG.warn("the log's topic {} has {} partitions, store.kafka.partitions is {}: the topic is used as it is",
                    topic, existing.get().partitions().size(), settings.partitions());
        }
        Config config = hooksConfig(admin, existing.isEmpty());
        int minIsr = (int) Math.min(Short.MAX_VALUE, longConfig(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, 1));
        int replicas = existing.map(d -> d.partitions().get(0).replicas().size()).orElse(settings.replicationFactor());
        if (replicas >= 3 && minIsr < 2) {
            LOG.warn("the log's topic {} has {} replicas but min.insync.replicas {}: a 202 may then rest on one broker's"
                    + " copy; set min.insync.replicas=2 on the topic", topic, replicas, minIsr);
        }
        ConfigEntry timestamps = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
        if (timestamps != null && "LogAppendTime".equals(timestamps.value())) {
            LOG.warn("the log's topic {} has message.timestamp.type LogAppendTime: GET /v1/hooks/{{id}} finds hooks by"
                    + " their id's time, and may miss them; set it to CreateTime", topic);
        }
        long retention = longConfig(config, TopicConfig.RETENTION_MS_CONFIG, -1);
        if (retention >= 0 && retention < settings.hooksRetentionMs()) {
            LOG.warn("the log's topic {} has retention.ms {}, shorter than retention.hooks_seconds ({} ms): hooks"
                    + " leave the log sooner", topic, retention, settings.hooksRetentionMs());
        }
        for (String side : List.of(settings.retryTopic(), settings.deadTopic())) {
            if (describe(admin, side).isEmpty()) {
                boolean dead = side.equals(settings.deadTopic());
                create(admin, side, dead ? settings.deadRetentionMs() : settings.hooksRetentionMs(),
                        dead ? TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE : null);
            }
        }
        return minIsr;
    }

    /**
     * The hooks topic's configuration. A topic this call has just made may not be known yet
     * to the broker asked (metadata spreads to the brokers after the creation answers): then
     * the describe is made again every 50 ms, for at most {@code timeout_ms}.
     */
    private Config hooksConfig(Admin admin, boolean justMade) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
        while (true) {
            try {
                return await(admin.describeConfigs(List.of(resource())).all()).get(resource());
            } catch (ExecutionException e) {
                if (!justMade || !(e.getCause() instanceof UnknownTopicOrPartitionException)
                        || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /**
     * Makes {@code topic} with the settings' partitions and replicas and {@code cleanupPolicy}
     * (null: the broker's default); one another node made first is fine.
     */
    private void create(Admin admin, String topic, long retentionMs, String cleanupPolicy) throws Exception {
        Map<String, String> config = new HashMap<>();
        if (cleanupPolicy != null) {
            config.put(TopicConfig.CLEANUP_POLICY_CONFIG, cleanupPolicy);
        }
        config.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionMs));
        config.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
        if (settings.replicationFactor() >= 3) {
            config.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        }
        try {
            await(admin.createTopics(List.of(new NewTopic(topic, Optional.of(settings.partitions()),
                    Optional.of((short) settings.replicationFactor())).configs(config))).all());
            LOG.info("created the log's topic {}: {} partitions, replication factor {}, retention.ms {}", topic,
                    settings.partitions(), settings.replicationFactor(), retentionMs);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) { // another node made it first: fine
                throw e;
            }
        }
    }

    /**
     * Null when every partition of the hooks topic has a leader and at least
     * {@code minIsr} in-sync replicas (an {@code acks=all} produce can succeed), else why not.
     */
    String probe(Admin admin, int minIsr) throws Exception {
        Optional<TopicDescription> d = describe(admin, settings.hooksTopic());
        if (d.isEmpty()) {
            return "the topic " + settings.hooksTopic() + " does not exist";
        }
        for (TopicPartitionInfo p : d.get().partitions()) {
            if (p.leader() == null || p.leader().isEmpty()) {
                return "partition " + p.partition() + " of " + settings.hooksTopic() + " has no leader";
            }
            if (p.isr().size() < minIsr) {
                return "partition " + p.partition() + " of " + settings.hooksTopic() + " has " + p.isr().size()
                        + " in-sync replicas, below min.insync.replicas " + minIsr;
            }
        }
        return null;
    }

    private Optional<TopicDescription> describe(Admin admin, String topic) throws Exception {
        try {
            return Optional.of(await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private ConfigResource resource() {
        return new ConfigResource(ConfigResource.Type.TOPIC, settings.hooksTopic());
    }

    private <T> T await(org.apache.kafka.common.KafkaFuture<T> f)
            throws ExecutionException, InterruptedException, TimeoutException {
        return f.get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
    }

    private static long longConfig(Config config, String name, long def) {
        ConfigEntry e = config.get(name);
        if (e == null || e.value() == null) {
            return def;
        }
        try {
            return Long.parseLong(e.value());
        } catch (NumberFormatException bad) {
            return def;
        }
    }
}

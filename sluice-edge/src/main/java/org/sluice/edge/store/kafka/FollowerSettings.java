package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;

/**
 * What a {@link LogFollower} needs to know: where the log is and how the delivery group
 * behaves. A plain record so that the server can fill it from {@code store.kafka} (its
 * {@code bootstrap_servers}, {@code topic_prefix} and {@code properties}).
 *
 * @param bootstrapServers        {@code host:port} of some brokers, at least one
 * @param topicPrefix             the prefix of Sluice's topics: the follower reads
 *                                {@code <prefix>.hooks} in group {@code <prefix>.delivery}
 * @param properties              consumer properties the operator adds (TLS, SASL, ...); the
 *                                keys the follower owns ({@link #OWNED_KEYS}) are
 *                                set by it whatever this map says
 * @param sessionTimeout          the group's {@code session.timeout.ms} (classic protocol): a
 *                                node that stops heartbeating loses its partitions after this
 *                                long; the broker refuses values outside its
 *                                {@code group.min.session.timeout.ms} (6 s by default) and
 *                                {@code group.max.session.timeout.ms}
 * @param maxTrackedPerPartition  records of one partition held between the committed offset
 *                                and the newest one read; at the bound the partition is paused
 *                                until its oldest unfinished hook finishes (backpressure)
 * @param commitInterval          how often finished offsets are committed (and the contact
 *                                with the group checked)
 * @param retryMoveAfter          a hook of the hooks topic whose next attempt is due further
 *                                away than this is moved to {@code <prefix>.retry}, so that it
 *                                stops holding its partition's committed offset; zero: never
 * @param carryAfter              a hook of the hooks topic held unfinished (a paused
 *                                destination, a slow retry) whose record is older than this is
 *                                carried forward to {@code <prefix>.retry} before the topic's
 *                                retention deletes it ({@link HookCarry}); zero: never. The
 *                                server sets half of {@code retention.hooks_seconds}
 */
public record FollowerSettings(List<String> bootstrapServers, String topicPrefix, Map<String, String> properties,
                               Duration sessionTimeout, int maxTrackedPerPartition, Duration commitInterval,
                               Duration retryMoveAfter, Duration carryAfter) implements TopicNames {

    /** Consumer properties the follower sets itself; the operator's map cannot change them. */
    public static final Set<String> OWNED_KEYS = Set.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            ConsumerConfig.GROUP_ID_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.ISOLATION_LEVEL_CONFIG);

    /** {@link #sessionTimeout()} unless set: 10 s. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** {@link #maxTrackedPerPartition()} unless set. */
    public static final int DEFAULT_MAX_TRACKED = 10_000;
    /** {@link #commitInterval()} unless set. */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(1);
    /** {@link #retryMoveAfter()} unless set: 60 s. */
    public static final Duration DEFAULT_RETRY_MOVE_AFTER = Duration.ofSeconds(60);

    public FollowerSettings {
        bootstrapServers = List.copyOf(bootstrapServers);
        if (bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("store.kafka.bootstrap_servers must name at least one broker, got none");
        }
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        properties = Map.copyOf(properties);
        if (sessionTimeout.toMillis() < 1 || sessionTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the delivery group's session timeout must be 1 ms to "
                    + Integer.MAX_VALUE + " ms, got " + sessionTimeout.toMillis() + " ms");
        }
        if (maxTrackedPerPartition < 1) {
            throw new IllegalArgumentException("records tracked per partition must be at least 1, got " + maxTrackedPerPartition);
        }
        if (commitInterval.toMillis() < 1) {
            throw new IllegalArgumentException("the commit interval must be at least 1 ms, got " + commitInterval.toMillis() + " ms");
        }
        if (retryMoveAfter.isNegative()) {
            throw new IllegalArgumentException("the retry move threshold must not be negative, got " + retryMoveAfter);
        }
        if (carryAfter.isNegative()) {
            throw new IllegalArgumentException("the carry-forward age must not be negative, got " + carryAfter);
        }
    }

    /** The defaults for everything but where the log is. */
    public static FollowerSettings of(List<String> bootstrapServers, String topicPrefix, Map<String, String> properties) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, DEFAULT_SESSION_TIMEOUT,
                DEFAULT_MAX_TRACKED, DEFAULT_COMMIT_INTERVAL, DEFAULT_RETRY_MOVE_AFTER, Duration.ZERO);
    }

    public FollowerSettings withSessionTimeout(Duration timeout) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, timeout, maxTrackedPerPartition, commitInterval, retryMoveAfter, carryAfter);
    }

    public FollowerSettings withMaxTrackedPerPartition(int max) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, sessionTimeout, max, commitInterval, retryMoveAfter, carryAfter);
    }

    public FollowerSettings withCommitInterval(Duration interval) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, sessionTimeout, maxTrackedPerPartition, interval, retryMoveAfter, carryAfter);
    }

    public FollowerSettings withRetryMoveAfter(Duration after) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, sessionTimeout, maxTrackedPerPartition,
                commitInterval, after, carryAfter);
    }

    /** As this, carrying forward held hooks older than {@code after} (zero: never); see {@link HookCarry}. */
    public FollowerSettings withCarryAfter(Duration after) {
        return new FollowerSettings(bootstrapServers, topicPrefix, properties, sessionTimeout, maxTrackedPerPartition,
                commitInterval, retryMoveAfter, after);
    }

    /** The follower's consumer properties: the operator's, then every {@link #OWNED_KEYS owned key} set here. */
    Map<String, Object> consumerProperties() {
        Map<String, Object> p = new HashMap<>(properties);
        long session = sessionTimeout.toMillis();
        ClientKeys.consumer(p, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId());
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // each topic spread evenly over the nodes; Kafka's cooperative sticky one second, the one a
        // group of nodes of an earlier version shares with a node of this one during a rolling upgrade
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                TopicSpreadAssignor.class.getName() + "," + CooperativeStickyAssignor.class.getName());
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(session));
        // a survivor learns of a dead node's expired session at its next heartbeat: every second
        // (a third of the session when shorter) keeps failover within the session plus ~2 s
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(Math.max(1, Math.min(session / 3, 1_000))));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return p;
    }
}

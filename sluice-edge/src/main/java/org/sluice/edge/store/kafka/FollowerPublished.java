package org.sluice.edge.store.kafka;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link LogFollower}'s thread publishes for the other threads: the offsets it
 * committed per partition of the hooks and retry topics, the hooks partitions it owns, and
 * its {@link FollowerFigures}. Written by the follower's thread only (on commit passes and in
 * the group's rebalance calls); read by any thread, never touching the consumer.
 */
final class FollowerPublished {

    private final String hooksTopic;
    private final String retryTopic;
    private final FollowerFigures figures;
    private final ConcurrentHashMap<Integer, Long> committed = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Long> committedRetry = new ConcurrentHashMap<>();
    private volatile Set<Integer> owned = Set.of();

    FollowerPublished(FollowerSettings settings, FollowerFigures figures) {
        this.hooksTopic = settings.hooksTopic();
        this.retryTopic = settings.retryTopic();
        this.figures = figures;
    }

    // ================================================================ read by any thread

    /** The offset last committed per partition of the hooks topic owned. */
    Map<Integer, Long> committedOffsets() {
        return new TreeMap<>(committed);
    }

    /** As {@link #committedOffsets()}, for the retry topic. */
    Map<Integer, Long> committedRetryOffsets() {
        return new TreeMap<>(committedRetry);
    }

    /** The partitions of the hooks topic owned now. */
    Set<Integer> owned() {
        return owned;
    }

    FollowerFigures figures() {
        return figures;
    }

    // ================================================================ written by the follower's thread

    /** {@code tp} committed {@code offset}. */
    void committed(TopicPartition tp, long offset) {
        of(tp).put(tp.partition(), offset);
    }

    /** {@code tp} is no longer this node's. */
    void released(TopicPartition tp) {
        of(tp).remove(tp.partition());
    }

    /** The partitions held now, of every topic. */
    void owned(Set<TopicPartition> held) {
        Set<Integer> now = new TreeSet<>();
        held.stream().filter(tp -> tp.topic().equals(hooksTopic)).forEach(tp -> now.add(tp.partition()));
        owned = Set.copyOf(now);
    }

    /**
     * Publishes, per topic, the partitions owned, the consumer's lag ({@code currentLag}: the
     * log end its last fetch saw, no call to the brokers) and the records held.
     */
    void figures(Map<TopicPartition, PartitionProgress> progress, Consumer<?, ?> consumer) {
        for (String topic : figures.topics()) {
            int owns = 0;
            long lag = 0;
            boolean lagKnown = false;
            long held = 0;
            for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
                if (!e.getKey().topic().equals(topic)) {
                    continue;
                }
                owns++;
                held += e.getValue().size();
                OptionalLong l = consumer.currentLag(e.getKey());
                if (l.isPresent()) {
                    lag += l.getAsLong();
                    lagKnown = true;
                }
            }
            figures.topic(topic, owns, owns == 0 || lagKnown ? lag : -1, held);
        }
    }

    /** The follower stopped: it owns nothing and holds nothing. */
    void stopped() {
        owned = Set.of();
        for (String topic : figures.topics()) {
            figures.topic(topic, 0, 0, 0);
        }
    }

    private ConcurrentHashMap<Integer, Long> of(TopicPartition tp) {
        return tp.topic().equals(retryTopic) ? committedRetry : committed;
    }
}

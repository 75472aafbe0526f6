package org.sluice.edge.store.kafka;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link LogFollower} knows about its share of the log, for the server's metrics
 * ({@code sluice_log_partitions_owned}, {@code sluice_log_rebalances_total},
 * {@code sluice_log_consumer_lag}, {@code sluice_log_held_records}): read-only for every
 * thread but the follower's, which writes it on each commit pass and in the group's
 * rebalance calls. Reading never touches the consumer nor the brokers, so a scrape costs
 * a few map reads. Per topic of the follower (the hooks topic, and the retry topic when
 * hooks are moved there); the store names no metrics library.
 */
public final class FollowerFigures {

    /** What a rebalance did to this node's partitions. */
    public enum Rebalance {
        /** Partitions given to this node. */
        ASSIGNED,
        /** Partitions taken back by the group in order (their finished offsets committed first). */
        REVOKED,
        /** Partitions lost without a handover: the session expired. */
        LOST
    }

    private final List<String> topics;
    private final Map<String, Integer> owned = new ConcurrentHashMap<>();
    private final Map<String, Long> lag = new ConcurrentHashMap<>();
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    private final Map<Rebalance, AtomicLong> rebalances = new ConcurrentHashMap<>();

    FollowerFigures(List<String> topics) {
        this.topics = List.copyOf(topics);
        for (String t : topics) {
            owned.put(t, 0);
            lag.put(t, 0L);
            held.put(t, 0L);
        }
        for (Rebalance r : Rebalance.values()) {
            rebalances.put(r, new AtomicLong());
        }
    }

    /** The topics the follower reads: the hooks topic first. */
    public List<String> topics() {
        return topics;
    }

    /** Partitions of {@code topic} this node owns now. */
    public int partitionsOwned(String topic) {
        return owned.getOrDefault(topic, 0);
    }

    /**
     * Records of {@code topic} between this node's read position and the log's end, summed
     * over the partitions it owns, as its consumer last saw the end (partitions whose end
     * it has not fetched yet are left out); -1 when it owns some and knows none's end.
     */
    public long consumerLag(String topic) {
        return lag.getOrDefault(topic, 0L);
    }

    /** Records of {@code topic} read and not committed past (behind each partition's oldest unfinished hook), summed. */
    public long heldRecords(String topic) {
        return held.getOrDefault(topic, 0L);
    }

    /** Rebalances since start that did {@code kind} to at least one partition of this node. */
    public long rebalances(Rebalance kind) {
        return rebalances.get(kind).get();
    }

    // written by the follower's thread

    void rebalanced(Rebalance kind) {
        rebalances.get(kind).incrementAndGet();
    }

    void topic(String topic, int ownedNow, long lagNow, long heldNow) {
        owned.put(topic, ownedNow);
        lag.put(topic, lagNow);
        held.put(topic, heldNow);
    }
}

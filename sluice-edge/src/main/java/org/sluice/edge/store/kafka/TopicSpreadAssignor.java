package org.sluice.edge.store.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * The delivery group's assignor: each topic's partitions spread evenly over the members
 * that subscribe it, sticky, with the cooperative protocol (docs/fleet-log.md, "Membership
 * and failover").
 *
 * <p>Why not Kafka's own: the cooperative sticky assignor balances the <em>sum</em> of a
 * member's partitions over all topics, so with {@code .hooks} and {@code .retry} of four
 * partitions each, three members may hold 2, 2 and 0 of {@code .hooks} (the third holding
 * only {@code .retry}, delivering no fresh hook). The range and round-robin assignors spread
 * each topic, but only with the eager protocol, where every rebalance stops every partition.
 *
 * <h2>The assignment, per topic (topics and members in name order)</h2>
 * <ol>
 *   <li>{@code n} partitions over {@code k} members: each member gets {@code n / k}, and
 *       {@code n % k} of them one more: those that own the most of the topic already, then
 *       those with the fewest partitions so far over the topics before (so the sums stay
 *       even too), then by member id.</li>
 *   <li>Each member keeps what it owns, up to its share; the rest (unowned, over a share, or
 *       owned by a member that left) goes to the members below their share, lowest
 *       partition first.</li>
 *   <li>Cooperative: a partition that moves from one live member to another is left out of
 *       this assignment altogether. Its old owner, no longer assigned it, revokes it and
 *       asks for another rebalance, in which it is free and goes to its new owner. So no
 *       partition is ever owned by two members at once.</li>
 * </ol>
 * A partition claimed by two members (a member that missed a rebalance) belongs to the one
 * with the higher generation.
 *
 * <h2>Topics of one shape are laid out alike</h2>
 * Topics with the same partition count and the same members (Sluice's {@code .hooks} and
 * {@code .retry}, created alike) are not spread each on its own: the first of them in name
 * order is spread as above, and partition {@code p} of each other one goes to the member
 * given partition {@code p} of the first (the cooperative step applies to it as to any). So
 * hooks partition {@code i} and retry partition {@code i} are always on one node, and move
 * together: a {@code fifo} key's hooks carried forward to the retry topic stay with the node
 * that delivers the rest of the key ({@link OrderedCarry}, {@link CarryCatchUp}). Each topic
 * is still spread evenly; the sums are then twice the first topic's shares.
 *
 * <p>Stateless; Kafka makes one per consumer and calls it on the group leader only.
 */
public final class TopicSpreadAssignor implements ConsumerPartitionAssignor {

    /** The name members agree on. */
    public static final String NAME = "sluice-topic-spread";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        Map<String, Integer> partitionCounts = new HashMap<>();
        for (Subscription s : subscriptions.values()) {
            for (String topic : s.topics()) {
                Integer count = metadata.partitionCountForTopic(topic);
                if (count != null) {
                    partitionCounts.put(topic, count);
                }
            }
        }
        Map<String, List<String>> topicsOf = new HashMap<>();
        Map<String, List<TopicPartition>> owned = new HashMap<>();
        Map<String, Integer> generations = new HashMap<>();
        subscriptions.forEach((member, s) -> {
            topicsOf.put(member, s.topics());
            owned.put(member, s.ownedPartitions());
            generations.put(member, s.generationId().orElse(-1));
        });
        Map<String, List<TopicPartition>> assigned = spread(partitionCounts, topicsOf, owned, generations);
        Map<String, Assignment> out = new HashMap<>();
        assigned.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }

    /**
     * The assignment itself, on plain values (tests call it directly).
     *
     * @param partitionCounts topic -> its partition count (topics absent from it are skipped)
     * @param topicsOf        member -> the topics it subscribes
     * @param owned           member -> the partitions it owns now (cooperative)
     * @param generations     member -> the generation of its ownership (-1 unknown)
     * @return member -> the partitions it is assigned now, every member present
     */
    static Map<String, List<TopicPartition>> spread(Map<String, Integer> partitionCounts,
                                                    Map<String, List<String>> topicsOf,
                                                    Map<String, List<TopicPartition>> owned,
                                                    Map<String, Integer> generations) {
        List<String> members = new ArrayList<>(topicsOf.keySet());
        members.sort(null);
        Map<TopicPartition, String> ownerOf = new HashMap<>();
        for (String m : members) {
            int generation = generations.getOrDefault(m, -1);
            for (TopicPartition tp : owned.getOrDefault(m, List.of())) {
                String other = ownerOf.get(tp);
                if (other == null || generation > generations.getOrDefault(other, -1)) {
                    ownerOf.put(tp, m);
                }
            }
        }
        Map<String, List<TopicPartition>> assigned = new HashMap<>();
        members.forEach(m -> assigned.put(m, new ArrayList<>()));
        Map<Shape, String[]> layouts = new HashMap<>();
        for (String topic : new TreeSet<>(partitionCounts.keySet())) {
            List<String> takers = new ArrayList<>();
            for (String m : members) {
                if (topicsOf.get(m).contains(topic)) {
                    takers.add(m);
                }
            }
            if (takers.isEmpty()) {
                continue;
            }
            int count = partitionCounts.get(topic);
            String[] layout = layouts.get(new Shape(count, takers));
            if (layout != null) { // laid out as the first topic of its shape
                for (int p = 0; p < count; p++) {
                    assigned.get(layout[p]).add(new TopicPartition(topic, p));
                }
                continue;
            }
            spreadTopic(topic, count, takers, ownerOf, assigned);
            String[] first = new String[count];
            assigned.forEach((m, partitions) -> partitions.stream().filter(tp -> tp.topic().equals(topic))
                    .forEach(tp -> first[tp.partition()] = m));
            layouts.put(new Shape(count, takers), first);
        }
        // cooperative: nothing goes to a new owner while its old, live owner still holds it
        assigned.forEach((member, partitions) -> partitions.removeIf(tp -> {
            String owner = ownerOf.get(tp);
            return owner != null && !owner.equals(member) && assigned.containsKey(owner);
        }));
        return assigned;
    }

    /** What topics laid out alike share: their partition count and their members (in name order). */
    private record Shape(int count, List<String> takers) {
    }

    private static void spreadTopic(String topic, int count, List<String> takers, Map<TopicPartition, String> ownerOf,
                                    Map<String, List<TopicPartition>> assigned) {
        Map<String, List<TopicPartition>> kept = new HashMap<>();
        takers.forEach(m -> kept.put(m, new ArrayList<>()));
        for (int p = 0; p < count; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            String owner = ownerOf.get(tp);
            if (owner != null && kept.containsKey(owner)) {
                kept.get(owner).add(tp);
            }
        }
        List<String> order = new ArrayList<>(takers);
        order.sort(Comparator.<String>comparingInt(m -> -kept.get(m).size())
                .thenComparingInt(m -> assigned.get(m).size())
                .thenComparing(Comparator.naturalOrder()));
        int base = count / takers.size();
        int extra = count % takers.size();
        Map<String, Integer> share = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
            share.put(order.get(i), base + (i < extra ? 1 : 0));
        }
        List<TopicPartition> free = new ArrayList<>();
        boolean[] taken = new boolean[count];
        for (String m : order) {
            List<TopicPartition> mine = kept.get(m);
            for (int i = 0; i < mine.size(); i++) {
                if (i < share.get(m)) {
                    assigned.get(m).add(mine.get(i));
                    taken[mine.get(i).partition()] = true;
                }
            }
        }
        for (int p = 0; p < count; p++) {
            if (!taken[p]) {
                free.add(new TopicPartition(topic, p));
            }
        }
        int next = 0;
        for (String m : order) {
            int have = (int) assigned.get(m).stream().filter(tp -> tp.topic().equals(topic)).count();
            for (int i = have; i < share.get(m) && next < free.size(); i++) {
                assigned.get(m).add(free.get(next++));
            }
        }
    }
}

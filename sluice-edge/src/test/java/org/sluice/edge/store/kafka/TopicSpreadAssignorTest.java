package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokersExtension;

/**
 * The delivery group's assignor ({@link TopicSpreadAssignor}): each topic's partitions spread
 * evenly over the members, also when a third member joins two that own everything (the
 * cooperative sticky assignor left 2, 2 and 0 of the hooks topic there); and three consumers
 * with the follower's own properties on a real broker end with one or two partitions of each
 * topic each.
 */
class TopicSpreadAssignorTest {

    private static final List<String> TOPICS = List.of("x.hooks", "x.retry");

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    private static TopicPartition tp(String topic, int p) {
        return new TopicPartition(topic, p);
    }

    private static Map<String, List<TopicPartition>> round(Map<String, List<TopicPartition>> owned) {
        Map<String, List<String>> topicsOf = new HashMap<>();
        Map<String, Integer> generations = new HashMap<>();
        owned.keySet().forEach(m -> {
            topicsOf.put(m, TOPICS);
            generations.put(m, 1);
        });
        return TopicSpreadAssignor.spread(Map.of("x.hooks", 4, "x.retry", 4), topicsOf, owned, generations);
    }

    private static void assertEvenPerTopic(Map<String, List<TopicPartition>> assignment, int members) {
        for (String topic : TOPICS) {
            List<TopicPartition> all = new ArrayList<>();
            for (List<TopicPartition> mine : assignment.values()) {
                long n = mine.stream().filter(tp -> tp.topic().equals(topic)).count();
                assertThat(n).as(topic + " of " + assignment).isBetween(4L / members, (4L + members - 1) / members);
                mine.stream().filter(tp -> tp.topic().equals(topic)).forEach(all::add);
            }
            assertThat(all).as(topic + " each partition once").hasSize(4).doesNotHaveDuplicates();
        }
        assertThat(assignment).hasSize(members);
    }

    /** Each member's retry partitions are its hooks partitions, by number: a key's two partitions are on one node. */
    private static void assertLaidOutAlike(Map<String, List<TopicPartition>> assignment) {
        assignment.forEach((member, mine) -> assertThat(numbers(mine, "x.retry")).as(member + " of " + assignment)
                .isEqualTo(numbers(mine, "x.hooks")));
    }

    private static Set<Integer> numbers(List<TopicPartition> partitions, String topic) {
        return partitions.stream().filter(tp -> tp.topic().equals(topic)).map(TopicPartition::partition)
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void threeNewMembersEachGetOneOrTwoOfEveryTopicWithTheSameNumbersOfEach() {
        Map<String, List<TopicPartition>> owned = new TreeMap<>(Map.of("a", List.of(), "b", List.of(), "c", List.of()));
        Map<String, List<TopicPartition>> first = round(owned);
        assertEvenPerTopic(first, 3);
        assertLaidOutAlike(first);
        assertThat(round(first)).as("sticky: the same again").isEqualTo(first);
    }

    @Test
    void aThirdMemberJoiningTwoThatOwnEverythingGetsSomeOfEachTopicInTwoCooperativeRounds() {
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        owned.put("a", List.of(tp("x.hooks", 0), tp("x.hooks", 1), tp("x.retry", 0), tp("x.retry", 1)));
        owned.put("b", List.of(tp("x.hooks", 2), tp("x.hooks", 3), tp("x.retry", 2), tp("x.retry", 3)));
        owned.put("c", List.of());
        Map<String, List<TopicPartition>> first = round(owned);
        // nothing moves straight from a live owner to c: it is revoked first
        assertThat(first.get("c")).isEmpty();
        assertThat(first.get("a")).isSubsetOf(owned.get("a"));
        assertThat(first.get("b")).isSubsetOf(owned.get("b"));
        Map<String, List<TopicPartition>> second = round(first);
        assertEvenPerTopic(second, 3);
        assertLaidOutAlike(second);
        assertThat(second.get("a")).containsAll(first.get("a"));
        assertThat(second.get("b")).containsAll(first.get("b"));
    }

    @Test
    void aMemberLeavingHandsItsPartitionsToTheOthersAtOnce() {
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        owned.put("a", List.of(tp("x.hooks", 0), tp("x.hooks", 1), tp("x.retry", 0), tp("x.retry", 1)));
        owned.put("b", List.of(tp("x.hooks", 2), tp("x.retry", 2)));
        // c (x.hooks-3, x.retry-3) has left
        Map<String, List<TopicPartition>> after = round(owned);
        assertEvenPerTopic(after, 2);
        assertLaidOutAlike(after);
        assertThat(after.get("a")).containsAll(owned.get("a"));
        assertThat(after.get("b")).containsAll(owned.get("b"));
    }

    /** As a group whose nodes ran a version that spread each topic on its own: the retry partition follows its hooks one. */
    @Test
    void aRetryPartitionOwnedApartFromItsHooksPartitionJoinsItInTwoCooperativeRounds() {
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        owned.put("a", List.of(tp("x.hooks", 0), tp("x.hooks", 1), tp("x.retry", 0)));
        owned.put("b", List.of(tp("x.hooks", 2), tp("x.hooks", 3), tp("x.retry", 1), tp("x.retry", 2), tp("x.retry", 3)));
        Map<String, List<TopicPartition>> first = round(owned);
        // x.retry-1 goes to a, the owner of x.hooks-1, but only once b has given it up
        assertThat(first.values()).allSatisfy(mine -> assertThat(mine).doesNotContain(tp("x.retry", 1)));
        assertThat(first.get("a")).containsExactlyInAnyOrderElementsOf(owned.get("a"));
        Map<String, List<TopicPartition>> second = round(first);
        assertEvenPerTopic(second, 2);
        assertLaidOutAlike(second);
        assertThat(second.get("a")).contains(tp("x.retry", 1));
    }

    @Test
    void aPartitionClaimedByTwoMembersStaysWithTheNewerGeneration() {
        Map<String, List<TopicPartition>> owned = Map.of("a", List.of(tp("x.hooks", 0)), "b", List.of(tp("x.hooks", 0)));
        Map<String, List<TopicPartition>> assigned = TopicSpreadAssignor.spread(Map.of("x.hooks", 2),
                Map.of("a", List.of("x.hooks"), "b", List.of("x.hooks")), owned, Map.of("a", 3, "b", 4));
        assertThat(assigned.get("b")).containsExactly(tp("x.hooks", 0));
        assertThat(assigned.get("a")).containsExactly(tp("x.hooks", 1));
    }

    @Test
    void threeConsumersWithTheFollowersPropertiesShareEachTopicEvenlyOnARealBroker() throws Exception {
        String prefix = "spread";
        FollowerSettings settings = new FollowerSettings(List.of(brokers.bootstrapServers()), prefix, Map.of(),
                Duration.ofSeconds(10), 100, Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO);
        List<String> topics = List.of(prefix + ".hooks", prefix + ".retry");
        for (String t : topics) {
            brokers.createTopic(t, 4, 1, Map.of());
        }
        List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(settings.consumerProperties());
                c.subscribe(topics);
                consumers.add(c);
            }
            pollUntil(consumers, () -> owned(consumers).size() == 8 && !anyEmpty(consumers));
            KafkaConsumer<byte[], byte[]> third = new KafkaConsumer<>(settings.consumerProperties());
            third.subscribe(topics);
            consumers.add(third);
            pollUntil(consumers, () -> owned(consumers).size() == 8 && evenPerTopic(consumers, topics));
            for (KafkaConsumer<byte[], byte[]> c : consumers) {
                for (String t : topics) {
                    assertThat(c.assignment().stream().filter(tp -> tp.topic().equals(t)).count())
                            .as(t + " of " + c.assignment()).isBetween(1L, 2L);
                }
            }
        } finally {
            consumers.forEach(KafkaConsumer::close);
        }
    }

    private static List<TopicPartition> owned(List<KafkaConsumer<byte[], byte[]>> consumers) {
        List<TopicPartition> all = new ArrayList<>();
        consumers.forEach(c -> all.addAll(c.assignment()));
        return Set.copyOf(all).size() == all.size() ? all : List.of(); // a partition held twice is not a result
    }

    private static boolean anyEmpty(List<KafkaConsumer<byte[], byte[]>> consumers) {
        return consumers.stream().anyMatch(c -> c.assignment().isEmpty());
    }

    private static boolean evenPerTopic(List<KafkaConsumer<byte[], byte[]>> consumers, List<String> topics) {
        for (KafkaConsumer<byte[], byte[]> c : consumers) {
            for (String t : topics) {
                long n = c.assignment().stream().filter(tp -> tp.topic().equals(t)).count();
                if (n < 1 || n > 2) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Polls every consumer in turn (each on this thread, as a consumer wants) until {@code done}, at most 2 min. */
    private static void pollUntil(List<KafkaConsumer<byte[], byte[]>> consumers, java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("assignments: %s", assignments(consumers)).isNegative();
            for (KafkaConsumer<byte[], byte[]> c : consumers) {
                c.poll(Duration.ofMillis(50));
            }
        }
    }

    private static List<Set<TopicPartition>> assignments(List<KafkaConsumer<byte[], byte[]>> consumers) {
        return consumers.stream().map(KafkaConsumer::assignment).toList();
    }
}

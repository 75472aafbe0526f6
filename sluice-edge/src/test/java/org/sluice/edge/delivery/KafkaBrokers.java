package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real KRaft Kafka cluster in the test JVM (Kafka's own test kit): combined
 * controller+broker nodes on free ports, data in a temp dir, topics never created by
 * themselves. Plus the two things tests do with it: make a topic, read a topic whole.
 */
public final class KafkaBrokers implements AutoCloseable {

    private final KafkaClusterTestKit cluster;

    private KafkaBrokers(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** {@code brokers} brokers, the first also the (only) controller. */
    public static KafkaBrokers start(int brokers, Map<String, String> brokerConfig) throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder().setCombined(true).setNumControllerNodes(1)
                .setNumBrokerNodes(brokers).build();
        KafkaClusterTestKit.Builder b = new KafkaClusterTestKit.Builder(nodes)
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("offsets.topic.replication.factor", Integer.toString(Math.min(3, brokers)))
                .setConfigProp("offsets.topic.num.partitions", "2");
        brokerConfig.forEach(b::setConfigProp);
        KafkaClusterTestKit c = b.build();
        try {
            c.format();
            c.startup();
            c.waitForReadyBrokers();
        } catch (Exception e) {
            c.close();
            throw e;
        }
        return new KafkaBrokers(c);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    public void createTopic(String name, int partitions, int replicas, Map<String, String> config) throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicas).configs(config))).all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** Makes topic {@code name} with its replicas placed by hand: partition to broker ids, the first the preferred leader. */
    public void createTopic(String name, Map<Integer, List<Integer>> replicasByPartition, Map<String, String> config)
            throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(name, replicasByPartition).configs(config))).all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** The nodes that also run the (only) controller: stopping their broker leaves the cluster its quorum. */
    public Set<Integer> controllerIds() {
        return cluster.controllers().keySet();
    }

    /** Stops the broker of node {@code id} (its data stays). */
    public void stopBroker(int id) {
        cluster.brokers().get(id).shutdown();
        cluster.brokers().get(id).awaitShutdown();
    }

    /** Starts the broker of node {@code id} again on its data. */
    public void startBroker(int id) throws Exception {
        startBrokers(List.of(id));
    }

    /**
     * Starts the brokers of nodes {@code ids} again, then waits until every broker is ready
     * (the test kit waits for all of them: one at a time would wait on those still stopped).
     */
    public void startBrokers(List<Integer> ids) throws Exception {
        for (int id : ids) {
            cluster.brokers().get(id).startup();
        }
        cluster.waitForReadyBrokers();
    }

    public Set<Integer> brokerIds() {
        return cluster.brokers().keySet();
    }

    /**
     * Every record of {@code topics} from the start, read until {@code enough} holds for
     * what was read (or 120 s pass: a claim lost with a killed process comes due after 30 s); partition by partition, each in offset order.
     */
    public List<ConsumerRecord<byte[], byte[]>> readAll(List<String> topics, Predicate<List<ConsumerRecord<byte[], byte[]>>> enough) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (String t : topics) {
                c.partitionsFor(t, Duration.ofSeconds(30)).forEach(i -> parts.add(new TopicPartition(t, i.partition())));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!enough.test(out) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // and everything already there by now (a repeat must not hide), but not what keeps coming
            Map<TopicPartition, Long> ends = c.endOffsets(parts);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp)) && System.nanoTime() < until) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** Header {@code name} of {@code r} as UTF-8 text (its last value), or null when it has none. */
    public static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The {@code webhook-id}s of {@code records}, each once, in the order first seen. */
    public static Set<String> hookIds(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<String> out = new LinkedHashSet<>();
        records.forEach(r -> out.add(header(r, "webhook-id")));
        return out;
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}

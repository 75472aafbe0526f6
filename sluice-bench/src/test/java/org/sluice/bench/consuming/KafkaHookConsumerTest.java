package org.sluice.bench.consuming;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The consuming example against a real KRaft broker in this JVM: records laid out as a
 * Sluice kafka destination writes them, with the repeats at-least-once delivery makes.
 */
class KafkaHookConsumerTest {

    private static KafkaClusterTestKit kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true).setNumControllerNodes(1)
                .setNumBrokerNodes(1).build())
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static void topic(String name) throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(name, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** Publishes hooks as Sluice does: {@code ids} in order, a repeated id being a redelivered copy. */
    private static void publish(String topic, List<String> ids) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (String id : ids) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, "acme".getBytes(StandardCharsets.UTF_8),
                        ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8), List.of(
                        new RecordHeader("webhook-id", id.getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("sluice-tenant", "acme".getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("sluice-source", "gh".getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("sluice-received-at", "2026-12-03T05:43:25.123Z".getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("sluice-attempt", "1".getBytes(StandardCharsets.UTF_8))));
                producer.send(r).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> ids(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add("hook-" + i);
        }
        return out;
    }

    private static void pollUntil(KafkaHookConsumer c, java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("consumed within 60 s").isLessThan(deadline);
            c.pollOnce(Duration.ofMillis(200));
        }
    }

    @Test
    void eachHookIsHandledOnceThoughItsCopyIsOnTheTopicTwice() throws Exception {
        topic("dupes");
        List<String> sent = new ArrayList<>(ids(0, 50));
        sent.addAll(ids(40, 50)); // the last ten again, as after a retry whose first copy was written
        publish("dupes", sent);

        List<String> handled = new ArrayList<>();
        KafkaHookConsumer.SeenIds seen = KafkaHookConsumer.SeenIds.inMemory(10_000);
        try (KafkaHookConsumer c = new KafkaHookConsumer(kafka.bootstrapServers(), "app", List.of("dupes"),
                h -> handled.add(h.id()), seen)) {
            pollUntil(c, () -> handled.size() + c.duplicates() >= 60);
            assertThat(c.duplicates()).isEqualTo(10);
        }
        assertThat(handled).containsExactlyInAnyOrderElementsOf(ids(0, 50));
    }

    @Test
    void aHookWhoseHandlerFailsIsHandedOverAgainAndNothingIsSkipped() throws Exception {
        topic("flaky");
        publish("flaky", ids(0, 20));
        List<String> handled = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        KafkaHookConsumer.SeenIds seen = KafkaHookConsumer.SeenIds.inMemory(10_000);
        try (KafkaHookConsumer c = new KafkaHookConsumer(kafka.bootstrapServers(), "app", List.of("flaky"), h -> {
            if (h.id().equals("hook-7") && failures.getAndIncrement() < 2) {
                throw new IllegalStateException("the database is busy");
            }
            handled.add(h.id());
        }, seen)) {
            pollUntil(c, () -> handled.size() >= 20);
        }
        assertThat(failures.get()).isEqualTo(3);
        assertThat(handled).containsExactlyInAnyOrderElementsOf(ids(0, 20));

        // committed after processing: a new member of the group starts after what was handled
        publish("flaky", ids(20, 25));
        List<String> later = new ArrayList<>();
        try (KafkaHookConsumer c = new KafkaHookConsumer(kafka.bootstrapServers(), "app", List.of("flaky"),
                h -> later.add(h.id()), KafkaHookConsumer.SeenIds.inMemory(10))) {
            pollUntil(c, () -> later.size() >= 5);
            for (int i = 0; i < 3; i++) {
                c.pollOnce(Duration.ofMillis(200));
            }
        }
        assertThat(later).containsExactlyInAnyOrderElementsOf(ids(20, 25));
    }

    @Test
    void theHookCarriesSluicesHeadersAndTheBodyBytes() throws Exception {
        topic("shape");
        publish("shape", List.of("hook-x"));
        List<KafkaHookConsumer.Hook> got = new ArrayList<>();
        try (KafkaHookConsumer c = new KafkaHookConsumer(kafka.bootstrapServers(), "shape-app", List.of("shape"), got::add,
                KafkaHookConsumer.SeenIds.inMemory(10))) {
            pollUntil(c, () -> !got.isEmpty());
        }
        KafkaHookConsumer.Hook h = got.get(0);
        assertThat(h.id()).isEqualTo("hook-x");
        assertThat(h.tenant()).isEqualTo("acme");
        assertThat(h.source()).isEqualTo("gh");
        assertThat(h.headers()).containsEntry("sluice-attempt", "1").containsKey("sluice-received-at");
        assertThat(new String(h.body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"hook-x\"}");
        assertThat(Map.copyOf(h.headers())).hasSize(5);
    }
}

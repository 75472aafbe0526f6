package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

/**
 * The Kafka log against one real broker (Kafka's KRaft test kit): a commit answers ACCEPTED
 * only once the record is on the log (read back with a plain consumer, every field compared),
 * a second node finds a hook by id, and a log whose broker is down answers nothing 202.
 */
class KafkaHookLogTest {

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private static KafkaLogSettings settings(String node, String prefix, long retentionMs) {
        return new KafkaLogSettings(node, List.of(brokers.bootstrapServers()), prefix, 3, 1, 2, 3000, Map.of(),
                retentionMs);
    }

    private static String prefix() {
        return "t" + PREFIXES.incrementAndGet();
    }

    private static PendingHook hook(String key, String body, List<String> destinations) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("X-Event-Id", key == null ? "none" : key);
        return new PendingHook("acme", "gh", key, 1_733_000_000_123L, headers, body.getBytes(StandardCharsets.UTF_8),
                destinations);
    }

    @Test
    void aHookIsAcceptedOnlyOnceTheLogHasItsRecord() throws Exception {
        String prefix = prefix();
        AtomicInteger acknowledged = new AtomicInteger();
        try (KafkaHookLog log = KafkaHookLog.open(settings("a", prefix, 86_400_000L), System::currentTimeMillis,
                new ProduceListener() {
                    @Override
                    public void acknowledged(long nanos) {
                        acknowledged.incrementAndGet();
                    }

                    @Override
                    public void failed() {
                    }
                })) {
            awaitTrue(() -> log.problem() == null, "the log is ready (its topic made and led)");
            List<PendingHook> batch = List.of(hook("evt-1", "{\"n\":1}", List.of("app", "audit")),
                    hook(null, "{\"n\":2}", List.of()), hook("evt-3", "{\"n\":3}", List.of("app")));
            List<CommitResult> results = log.commit(batch);
            assertThat(results).extracting(CommitResult::status).containsOnly(CommitResult.Status.ACCEPTED);
            assertThat(acknowledged.get()).isEqualTo(3);

            List<ConsumerRecord<byte[], byte[]>> records = brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= 3);
            assertThat(records).hasSize(3);
            for (int i = 0; i < 3; i++) {
                String id = results.get(i).id();
                ConsumerRecord<byte[], byte[]> r = records.stream()
                        .filter(c -> id.equals(KafkaBrokers.header(c, HookRecords.ID))).findFirst().orElseThrow();
                PendingHook sent = batch.get(i);
                assertThat(r.key()).isEqualTo(HookRecords.key("acme", "gh"));
                assertThat(r.timestamp()).isEqualTo(HookRecords.idMillis(UUID.fromString(id)));
                HookRecords.LoggedHook read = HookRecords.read(r);
                StoredHook h = read.hook();
                assertThat(h.id()).isEqualTo(id);
                assertThat(h.tenant()).isEqualTo(sent.tenant());
                assertThat(h.source()).isEqualTo(sent.source());
                assertThat(h.dedupeKey()).isEqualTo(sent.dedupeKey());
                assertThat(h.receivedAtMillis()).isEqualTo(sent.receivedAtMillis());
                assertThat(List.copyOf(h.headers().entrySet())).containsExactlyElementsOf(sent.headers().entrySet());
                assertThat(h.body()).isEqualTo(sent.body());
                assertThat(read.destinations()).isEqualTo(sent.destinations());
            }
            // ids are UUIDv7 in commit order
            assertThat(UUID.fromString(results.get(0).id()).version()).isEqualTo(7);
            assertThat(results.get(0).id()).isLessThan(results.get(1).id());
            assertThat(results.get(1).id()).isLessThan(results.get(2).id());

            try (Admin admin = Admin.create(adminProps())) {
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, prefix + ".hooks");
                Config config = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
                assertThat(config.get("retention.ms").value()).isEqualTo("86400000");
                assertThat(admin.describeTopics(List.of(prefix + ".hooks")).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(prefix + ".hooks").partitions()).hasSize(3);
            }
        }
    }

    @Test
    void concurrentCommitsShareTheProducerAndEveryAcceptedHookIsOnTheLogOnce() throws Exception {
        String prefix = prefix();
        int threads = 4;
        int batches = 25;
        int perBatch = 5;
        try (KafkaHookLog log = KafkaHookLog.open(settings("a", prefix, 86_400_000L), System::currentTimeMillis,
                ProduceListener.NONE)) {
            awaitTrue(() -> log.problem() == null, "the log is ready (its topic made and led)");
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<List<String>>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int writer = t;
                writers.add(pool.submit(() -> {
                    List<String> ids = new ArrayList<>();
                    for (int b = 0; b < batches; b++) {
                        List<PendingHook> batch = new ArrayList<>();
                        for (int i = 0; i < perBatch; i++) {
                            batch.add(hook(null, writer + "-" + b + "-" + i, List.of()));
                        }
                        for (CommitResult r : log.commit(batch)) {
                            assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
                            ids.add(r.id());
                        }
                    }
                    return ids;
                }));
            }
            List<String> accepted = new ArrayList<>();
            for (java.util.concurrent.Future<List<String>> w : writers) {
                accepted.addAll(w.get(120, TimeUnit.SECONDS));
            }
            pool.shutdown();
            int total = threads * batches * perBatch;
            assertThat(accepted).hasSize(total).doesNotHaveDuplicates();
            List<String> logged = brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= total).stream()
                    .map(r -> KafkaBrokers.header(r, HookRecords.ID)).toList();
            assertThat(logged).containsExactlyInAnyOrderElementsOf(accepted);
        }
    }

    /**
     * Kafka's own 16 KiB {@code batch.size} held twelve of these hooks: one commit of a key's
     * 40 hooks went out as four produce requests, each replicated on its own (the brokers' CPU
     * is spent per request). The log's producer now batches 64 KiB, so the 40 share one.
     */
    @Test
    void oneCommitOfFortyKibibyteHooksOfOneKeyIsOneProduceRequest() throws InterruptedException {
        String prefix = prefix();
        // a linger far above the time the commit takes to hand 40 records over: only the batch size splits them
        KafkaLogSettings settings = new KafkaLogSettings("a", List.of(brokers.bootstrapServers()), prefix, 3, 1, 200, 3000,
                Map.of(), 86_400_000L);
        try (KafkaHookLog log = KafkaHookLog.open(settings, System::currentTimeMillis, ProduceListener.NONE)) {
            awaitTrue(() -> log.problem() == null, "the log is ready (its topic made and led)");
            String body = "x".repeat(1024);
            List<PendingHook> batch = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                batch.add(hook(null, body, List.of()));
            }
            List<CommitResult> results = log.commit(batch);
            assertThat(results).extracting(CommitResult::status).containsOnly(CommitResult.Status.ACCEPTED);
            assertThat(brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= 40)).hasSize(40);
            assertThat(producerMetric(log, "records-per-request-avg")).isEqualTo(40.0);
        }
    }

    private static double producerMetric(KafkaHookLog log, String name) {
        return log.clients().producer().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElseThrow();
    }

    @Test
    void aSecondCopyOfAKeyInOneBatchIsADuplicateOfTheFirst() throws InterruptedException {
        String prefix = prefix();
        try (KafkaHookLog log = KafkaHookLog.open(settings("a", prefix, 86_400_000L), System::currentTimeMillis,
                ProduceListener.NONE)) {
            awaitTrue(() -> log.problem() == null, "the log is ready (its topic made and led)");
            List<CommitResult> results = log.commit(List.of(hook("evt-1", "a", List.of()), hook("evt-1", "b", List.of())));
            assertThat(results.get(0).status()).isEqualTo(CommitResult.Status.ACCEPTED);
            assertThat(results.get(1)).isEqualTo(CommitResult.duplicate(results.get(0).id()));
            assertThat(brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= 1)).hasSize(1);
        }
    }

    @Test
    void aNodeFindsByIdAHookAnotherNodeAccepted() throws InterruptedException {
        String prefix = prefix();
        AtomicLong wall = new AtomicLong(System.currentTimeMillis());
        try (KafkaHookLog a = KafkaHookLog.open(settings("a", prefix, 3_600_000L), System::currentTimeMillis,
                ProduceListener.NONE);
             KafkaHookLog b = KafkaHookLog.open(settings("b", prefix, 3_600_000L), wall::get, ProduceListener.NONE)) {
            awaitTrue(() -> a.problem() == null, "the log is ready (its topic made and led)");
            List<PendingHook> batch = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                batch.add(hook("evt-" + i, "{\"n\":" + i + "}", List.of("app")));
            }
            List<CommitResult> results = a.commit(batch);
            for (int i : new int[] {0, 17, 49}) {
                StoredHook found = b.get(results.get(i).id()).orElseThrow();
                assertThat(found.id()).isEqualTo(results.get(i).id());
                assertThat(found.dedupeKey()).isEqualTo("evt-" + i);
                assertThat(found.body()).isEqualTo(batch.get(i).body());
                assertThat(List.copyOf(found.headers().entrySet())).containsExactlyElementsOf(batch.get(i).headers().entrySet());
            }
            // an id the log never had (this millisecond, far from the counter of this batch), a v4 id, and text that is no id
            UUID known = UUID.fromString(results.get(0).id());
            assertThat(b.get(new UUID(known.getMostSignificantBits(), known.getLeastSignificantBits() ^ (1L << 60)).toString())).isEmpty();
            assertThat(b.get(UUID.randomUUID().toString())).isEmpty();
            assertThat(b.get("not-an-id")).isEmpty();
            assertThat(b.get(results.get(3).id().toUpperCase(java.util.Locale.ROOT))).isPresent();

            // past retention.hooks_seconds the hook is gone, though its segment is still on disk
            wall.set(System.currentTimeMillis() + 3_600_001L + 1000); // past every id's millisecond, however long the commit took
            assertThat(b.get(results.get(0).id())).isEmpty();
            assertThat(b.after(null, 10).hooks()).as("listed past retention").isEmpty();
            assertThat(b.newest(null, 10).hooks()).as("listed newest first past retention").isEmpty();
        }
    }

    /**
     * A hook older than {@code retention.hooks_seconds} is found while the delivery group has
     * not committed past its record (it has a pending delivery, as the RocksDB store keeps
     * such a hook), and gone once the group commits past it. The parity suite's retention
     * case found the lookup answering "gone" for a hook a pause held.
     */
    @Test
    void aHookPastRetentionIsFoundUntilTheDeliveryGroupCommitsPastIt() throws Exception {
        String prefix = prefix();
        AtomicLong wall = new AtomicLong(System.currentTimeMillis());
        KafkaLogSettings settings = settings("b", prefix, 3_600_000L);
        try (KafkaHookLog a = KafkaHookLog.open(settings("a", prefix, 3_600_000L), System::currentTimeMillis,
                ProduceListener.NONE);
             KafkaHookLog b = KafkaHookLog.open(settings, wall::get, ProduceListener.NONE)) {
            awaitTrue(() -> a.problem() == null, "the log is ready (its topic made and led)");
            // one (tenant, source): one partition, the first hook before the second
            List<CommitResult> results = a.commit(List.of(hook("first", "{}", List.of("app")), hook("second", "{}", List.of("app"))));
            String first = results.get(0).id();
            String second = results.get(1).id();
            List<ConsumerRecord<byte[], byte[]>> records = brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= 2);
            ConsumerRecord<byte[], byte[]> held = records.stream()
                    .filter(r -> second.equals(new String(r.headers().lastHeader(HookRecords.ID).value(), StandardCharsets.UTF_8)))
                    .findFirst().orElseThrow();
            TopicPartition tp = new TopicPartition(held.topic(), held.partition());
            wall.set(System.currentTimeMillis() + 3_600_001L + 1000); // both past retention

            assertThat(b.get(second)).as("no delivery group has committed the partition").isEmpty();
            commitDeliveryGroup(settings, tp, held.offset()); // the first finished, the second held
            assertThat(b.get(second)).as("held by the delivery group").isPresent();
            assertThat(b.get(first)).as("finished, past retention").isEmpty();
            commitDeliveryGroup(settings, tp, held.offset() + 1);
            assertThat(b.get(second)).as("finished, past retention").isEmpty();
        }
    }

    /** Commits {@code offset} on {@code tp} for the log's delivery group, as a follower does. */
    private static void commitDeliveryGroup(KafkaLogSettings settings, TopicPartition tp, long offset) {
        Properties p = LogClients.consumerProperties(settings);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, TopicNames.deliveryGroup(settings.topicPrefix()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)), Duration.ofSeconds(30));
        }
    }

    @Test
    void aBrokerDownAnswersStoreUnavailableAndLogsNothingThenTheLogRecoversByItself() throws Exception {
        String prefix = prefix();
        int broker = brokers.brokerIds().iterator().next();
        AtomicInteger failed = new AtomicInteger();
        ProduceListener counting = new ProduceListener() {
            @Override
            public void acknowledged(long nanos) {
            }

            @Override
            public void failed() {
                failed.incrementAndGet();
            }
        };
        try (KafkaHookLog manual = KafkaHookLog.open(settings("a", prefix, 86_400_000L), System::currentTimeMillis,
                counting, false);
             KafkaHookLog watched = KafkaHookLog.open(settings("b", prefix, 86_400_000L), System::currentTimeMillis,
                     ProduceListener.NONE)) {
            assertThat(manual.commit(List.of(hook("before", "before", List.of())))).extracting(CommitResult::status)
                    .containsExactly(CommitResult.Status.ACCEPTED);
            brokers.stopBroker(broker);
            try {
                // the produce path: the record is given up after timeout_ms, nothing answered 202
                List<CommitResult> down = manual.commit(List.of(hook("lost-1", "lost-1", List.of()),
                        hook("lost-2", "lost-2", List.of())));
                assertThat(down).containsOnly(CommitResult.STORE_UNAVAILABLE);
                assertThat(manual.problem()).isNotNull();
                awaitTrue(() -> failed.get() == 2, "the producer gives both records up");
                // the watch's path: it sees the broker gone, and commits are refused at once
                awaitTrue(() -> watched.problem() != null, "the watch sees the broker gone");
                assertThatThrownBy(() -> watched.commit(List.of(hook("lost-3", "lost-3", List.of()))))
                        .isInstanceOf(HookStoreException.class).hasMessageContaining("is unavailable");
            } finally {
                brokers.startBroker(broker);
            }
            awaitTrue(() -> watched.problem() == null, "the watch sees the broker back");
            assertThat(watched.commit(List.of(hook("after", "after", List.of())))).extracting(CommitResult::status)
                    .containsExactly(CommitResult.Status.ACCEPTED);
            manual.checkNow();
            assertThat(manual.problem()).isNull();
            assertThat(manual.commit(List.of(hook("after-2", "after-2", List.of())))).extracting(CommitResult::status)
                    .containsExactly(CommitResult.Status.ACCEPTED);
            List<String> bodies = brokers.readAll(List.of(prefix + ".hooks"), r -> r.size() >= 3).stream()
                    .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
            assertThat(bodies).containsExactlyInAnyOrder("before", "after", "after-2");
        }
    }

    private static Properties adminProps() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrapServers());
        return p;
    }

    /** Waits for {@code condition} (60 s at most), checking every 50 ms. */
    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(50);
        }
    }
}

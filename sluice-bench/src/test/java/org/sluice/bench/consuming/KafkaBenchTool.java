package org.sluice.bench.consuming;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * The Kafka side of {@code scripts/broker-bench-kafka.sh}, run from the test classpath:
 * <ul>
 *   <li>{@code broker FILE [BROKERS [KEY=VALUE...]]}: a KRaft cluster of Kafka's test kit in this JVM, one
 *       node by default, on free ports; writes its bootstrap addresses to FILE and runs until
 *       killed (SIGTERM closes the cluster and deletes its data). With BROKERS of 3 or more,
 *       the cluster a fleet would run: the first node also the controller, new topics and the
 *       group offsets replicated three times, {@code min.insync.replicas=2}; each KEY=VALUE a broker setting more. The brokers' request
 *       counts are answered in {@code FILE.counters} whenever {@code FILE.ask} appears ({@link BrokerCounters});</li>
 *   <li>{@code topic BOOTSTRAP NAME PARTITIONS [REPLICAS]}: creates a topic (one replica by
 *       default) whose record timestamps are the broker's append time;</li>
 *   <li>{@code ceiling BOOTSTRAP TOPIC SECONDS BYTES [records]}: a plain producer loop
 *       (idempotent, {@code acks=all}, lz4 and {@code linger.ms} 5 as the bench destination)
 *       at full speed: records/s acknowledged; with {@code records}, each record as Sluice
 *       sends it (its headers, a distinct {@code webhook-id}), to show what the client and
 *       broker allow for those;</li>
 *   <li>{@code count BOOTSTRAP TOPIC FROM_MS TO_MS [RECEIVED_FROM_MS]}: reads the topic
 *       whole: records, distinct hooks, repeats, first and last append time, hooks appended
 *       per second between FROM_MS and TO_MS, and the lag (append time - receipt, the receipt
 *       read from the UUIDv7 {@code webhook-id}) p50 / p99 / max, over every hook or, with
 *       RECEIVED_FROM_MS, over the hooks received from then on (a warm-up left out);</li>
 *   <li>{@code fill BOOTSTRAP PREFIX PARTITIONS N BYTES DESTINATION}: fills the fleet log's hooks
 *       topic {@code PREFIX.hooks} (made here, {@code CreateTime}) with N hooks of source
 *       {@code bench} as Sluice's intake logs them (UUIDv7 ids, one {@code sluice-destination}),
 *       BYTES of body each; prints the first and last id's millisecond;</li>
 *   <li>{@code await BOOTSTRAP TOPIC N SECONDS}: waits until the topic holds N records (its end
 *       offsets summed), at most SECONDS;</li>
 *   <li>{@code size BOOTSTRAP TOPIC}: prints the records the topic holds (its end offsets summed);</li>
 *   <li>{@code delete BOOTSTRAP PREFIX}: deletes every topic whose name starts with {@code PREFIX.}.</li>
 * </ul>
 */
public final class KafkaBenchTool {

    private KafkaBenchTool() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "broker" -> broker(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 1,
                    Arrays.asList(args).subList(Math.min(3, args.length), args.length));
            case "topic" -> topic(args[1], args[2], Integer.parseInt(args[3]), args.length > 4 ? Short.parseShort(args[4]) : 1);
            case "ceiling" -> ceiling(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    args.length > 5 && args[5].equals("records"));
            case "count" -> count(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]),
                    args.length > 5 ? Long.parseLong(args[5]) : Long.MIN_VALUE);
            case "fill" -> fill(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), args[6]);
            case "await" -> await(args[1], args[2], Long.parseLong(args[3]), Integer.parseInt(args[4]));
            case "size" -> System.out.println(size(args[1], args[2]));
            case "delete" -> delete(args[1], args[2]);
            default -> throw new IllegalArgumentException("unknown command " + Arrays.toString(args));
        }
    }

    private static void broker(Path addressFile, int brokers, List<String> settings) throws Exception {
        String replicas = Integer.toString(Math.min(3, brokers));
        KafkaClusterTestKit.Builder b = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true)
                .setNumControllerNodes(1).setNumBrokerNodes(brokers).build())
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("offsets.topic.replication.factor", replicas)
                .setConfigProp("default.replication.factor", replicas)
                .setConfigProp("group.initial.rebalance.delay.ms", "0");
        if (brokers >= 3) {
            b.setConfigProp("min.insync.replicas", "2");
        }
        for (String setting : settings) { // key=value, a broker setting of the caller's
            int eq = setting.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a broker setting is key=value, got " + setting);
            }
            b.setConfigProp(setting.substring(0, eq), setting.substring(eq + 1));
        }
        KafkaClusterTestKit kafka = b.build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                kafka.close();
            } catch (Exception e) {
                System.err.println("closing the cluster: " + e);
            } finally { // the test kit's close left the first node's data behind with three brokers
                deleteTree(Path.of(kafka.nodes().baseDirectory()));
            }
        }));
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        BrokerCounters.answerOn(Path.of(addressFile + ".ask"), Path.of(addressFile + ".counters"));
        Files.writeString(addressFile, kafka.bootstrapServers());
        new CountDownLatch(1).await(); // until killed
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            System.err.println("deleting " + dir + ": " + e);
        }
    }

    private static void topic(String bootstrap, String name, int partitions, short replicas) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, replicas)
                    .configs(Map.of("message.timestamp.type", "LogAppendTime")))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static void fill(String bootstrap, String prefix, int partitions, int n, int bytes, String destination)
            throws Exception {
        String topic = prefix + ".hooks";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties p = producerProperties(bootstrap);
        byte[] body = body(bytes);
        org.sluice.edge.store.UuidV7 ids = new org.sluice.edge.store.UuidV7();
        Map<String, String> headers = Map.of("content-type", "application/json");
        AtomicLong failed = new AtomicLong();
        long first = 0;
        long last = 0;
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < n; i++) {
                long now = System.currentTimeMillis();
                java.util.UUID id = ids.next(now);
                last = org.sluice.edge.store.UuidV7.millisOf(id);
                first = i == 0 ? last : first;
                org.sluice.edge.store.PendingHook hook = new org.sluice.edge.store.PendingHook("bench", "bench", null, now,
                        headers, body, List.of(destination));
                producer.send(org.sluice.edge.store.kafka.HookRecords.record(topic, id, hook), (m, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        System.out.printf("filled %s with %d hooks of %d bytes in %.1f s (%d failed); ids from %d to %d%n", topic, n, bytes,
                (System.nanoTime() - start) / 1e9, failed.get(), first, last);
    }

    private static void await(String bootstrap, String topic, long n, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(bootstrap))) {
            List<TopicPartition> parts = partitions(c, topic);
            while (System.nanoTime() < deadline) {
                records = c.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
                if (records >= n) {
                    System.out.println(System.currentTimeMillis());
                    return;
                }
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException(topic + " holds " + records + " records after " + seconds + " s, not " + n);
    }

    private static long size(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(bootstrap))) {
            return c.endOffsets(partitions(c, topic)).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static void delete(String bootstrap, String prefix) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(prefix + ".")).toList();
            admin.deleteTopics(names).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static Properties consumerProperties(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
        List<TopicPartition> parts = new ArrayList<>();
        c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
        return parts;
    }

    private static void ceiling(String bootstrap, String topic, int seconds, int bytes, boolean records) throws Exception {
        Properties p = producerProperties(bootstrap);
        byte[] body = body(bytes);
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long cpu0 = processCpuNanos();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            byte[] key = "bench".getBytes(StandardCharsets.UTF_8);
            byte[] receivedAt = java.time.Instant.now().toString().getBytes(StandardCharsets.UTF_8);
            long n = 0;
            while (System.nanoTime() < end) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, key, body);
                if (records) { // what Sluice sends: its headers, a distinct id per record
                    record.headers()
                            .add("webhook-id", new java.util.UUID(System.nanoTime(), n++).toString().getBytes(StandardCharsets.UTF_8))
                            .add("sluice-tenant", "bench".getBytes(StandardCharsets.UTF_8))
                            .add("sluice-source", key)
                            .add("sluice-received-at", receivedAt)
                            .add("sluice-attempt", "1".getBytes(StandardCharsets.UTF_8))
                            .add("content-type", "application/json".getBytes(StandardCharsets.UTF_8));
                }
                producer.send(record, (m, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        double cpuUs = (processCpuNanos() - cpu0) / 1e3 / Math.max(1, acked.get());
        System.out.printf("plain producer%s (idempotent, acks=all, lz4, %d-byte records): %.0f records/s acknowledged (%d in %.1f s, %d failed;"
                        + " the producer's JVM %.1f us of CPU per record)%n",
                records ? " of Sluice's records (its headers, a distinct webhook-id)" : "",
                bytes, acked.get() / secs, acked.get(), secs, failed.get(), cpuUs);
    }

    /** Idempotent, {@code acks=all}, lz4 and {@code linger.ms} 5, as the bench destination. */
    private static Properties producerProperties(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return p;
    }

    /** {@code bytes} random lower-case letters, the same on every call. */
    private static byte[] body(int bytes) {
        byte[] body = new byte[bytes];
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        for (int i = 0; i < bytes; i++) {
            body[i] = (byte) ('a' + r.nextInt(26));
        }
        return body;
    }

    private static void count(String bootstrap, String topic, long fromMs, long toMs, long receivedFromMs) {
        Properties p = consumerProperties(bootstrap);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        long records = 0;
        long inWindow = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        Set<String> ids = new HashSet<>();
        List<Long> lags = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = partitions(c, topic);
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = c.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    records++;
                    long at = r.timestamp();
                    Header h = r.headers().lastHeader("webhook-id");
                    if (h == null) {
                        continue;
                    }
                    String id = new String(h.value(), StandardCharsets.UTF_8);
                    if (ids.add(id)) {
                        long received = receiptMillis(id);
                        if (received >= receivedFromMs) {
                            lags.add(at - received);
                        }
                        if (at >= fromMs && at <= toMs) {
                            inWindow++;
                            first = Math.min(first, at);
                            last = Math.max(last, at);
                        }
                    }
                }
            }
        }
        lags.sort(null);
        double window = Math.max(1, toMs - fromMs) / 1000.0;
        long span = inWindow == 0 ? 0 : last - first;
        System.out.printf("records=%d distinct=%d repeats=%d appended/s in window=%.0f"
                        + " window's first..last append=%d ms (%.0f/s) lag_ms p50=%s p99=%s max=%s%n",
                records, ids.size(), records - ids.size(), inWindow / window, span,
                span == 0 ? 0.0 : inWindow * 1000.0 / span,
                pct(lags, 50), pct(lags, 99), lags.isEmpty() ? "-" : lags.get(lags.size() - 1));
    }

    /** CPU time of this JVM so far, every thread (its own threads, the client's, GC and JIT). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The receipt time a UUIDv7 carries: its first 48 bits, epoch milliseconds. */
    static long receiptMillis(String uuid) {
        return Long.parseLong(uuid.replace("-", "").substring(0, 12), 16);
    }

    private static String pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return "-";
        }
        int i = (int) Math.min(sorted.size() - 1, Math.max(0, Math.ceil(p / 100.0 * sorted.size()) - 1));
        return Long.toString(sorted.get(i));
    }
}

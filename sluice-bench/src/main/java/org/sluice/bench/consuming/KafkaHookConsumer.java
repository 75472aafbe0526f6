package org.sluice.bench.consuming;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How an application consumes the hooks a Sluice {@code type: kafka} destination
 * publishes (docs/consuming.md, "Kafka"): a consumer group, the offset committed only
 * after the hook was processed, and a dedupe on the {@code webhook-id} header, because
 * delivery is at least once (a hook can be on the topic twice after a retry or a crash).
 *
 * <p>A hook whose handler throws is not committed: the consumer seeks back to it and the
 * next {@link #pollOnce} hands it over again (what was processed before it in the same
 * partition is committed). Not thread-safe, like the {@link KafkaConsumer} it wraps: one
 * instance per thread, as many instances (processes) per group as partitions.
 */
public final class KafkaHookConsumer implements AutoCloseable {

    /** What the application does with one hook. */
    @FunctionalInterface
    public interface Handler {
        void handle(Hook hook) throws Exception;
    }

    /**
     * One hook as Sluice published it.
     *
     * @param id      the {@code webhook-id} header: the hook's id, the same on every copy
     * @param tenant  {@code sluice-tenant}
     * @param source  {@code sluice-source}
     * @param headers every record header, last value per name (forwarded headers included)
     * @param body    the received body, byte for byte
     */
    @SuppressWarnings("ArrayRecordComponent")
    public record Hook(String id, String tenant, String source, Map<String, String> headers, byte[] body) {
    }

    /**
     * The ids already processed. An application keeps them where it keeps its effects (in
     * the same database transaction, ideally); {@link #inMemory(int)} is the simplest kind.
     */
    public interface SeenIds {
        boolean contains(String id);

        void add(String id);

        /** The last {@code capacity} ids, in memory: enough when copies arrive close together. */
        static SeenIds inMemory(int capacity) {
            Map<String, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > capacity;
                }
            };
            return new SeenIds() {
                @Override
                public boolean contains(String id) {
                    return lru.containsKey(id);
                }

                @Override
                public void add(String id) {
                    lru.put(id, Boolean.TRUE);
                }
            };
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Handler handler;
    private final SeenIds seen;
    private long duplicates;

    /**
     * @param bootstrapServers the brokers, {@code host:port,...}
     * @param group            the consumer group: instances of one group share the partitions
     * @param topics           the topics the destination publishes to
     */
    public KafkaHookConsumer(String bootstrapServers, String group, List<String> topics, Handler handler, SeenIds seen) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"); // commit after processing, below
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(p);
        this.handler = handler;
        this.seen = seen;
        consumer.subscribe(topics);
    }

    /**
     * Polls once, hands each new hook to the handler, skips copies of hooks already seen,
     * and commits the offsets of what was processed. Returns how many hooks were handled.
     */
    public int pollOnce(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        int handled = 0;
        for (TopicPartition tp : records.partitions()) {
            for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                Hook hook = hook(r);
                if (hook.id() == null || seen.contains(hook.id())) {
                    duplicates++; // a repeat: processed before, only its offset moves on
                } else {
                    try {
                        handler.handle(hook);
                    } catch (Exception failed) {
                        consumer.seek(tp, r.offset()); // again at the next poll; nothing after it is committed
                        break;
                    }
                    seen.add(hook.id());
                    handled++;
                }
                done.put(tp, new OffsetAndMetadata(r.offset() + 1));
            }
        }
        if (!done.isEmpty()) {
            consumer.commitSync(done);
        }
        return handled;
    }

    /** Copies skipped because their {@code webhook-id} was already processed. */
    public long duplicates() {
        return duplicates;
    }

    static Hook hook(ConsumerRecord<byte[], byte[]> r) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
        }
        return new Hook(headers.get("webhook-id"), headers.get("sluice-tenant"), headers.get("sluice-source"), headers, r.value());
    }

    @Override
    public void close() {
        consumer.close();
    }
}

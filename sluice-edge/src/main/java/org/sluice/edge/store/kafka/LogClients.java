package org.sluice.edge.store.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.sluice.edge.store.HookStoreException;

/**
 * The log's Kafka clients, made when first needed: ONE idempotent producer shared by every
 * commit of the node, one admin client (topics, health), and consumers on demand (id
 * lookups). Made lazily because a client cannot even be built while a broker's name does
 * not resolve: the node starts anyway, and the log's watch builds them once it can.
 *
 * <p>The producer's contract: {@code acks=all}, {@code enable.idempotence=true}, at most 5
 * requests in flight per connection (so idempotence keeps each partition in send order),
 * {@code linger.ms} from the settings, {@code delivery.timeout.ms} = {@code timeout_ms}
 * (the producer gives a record up when its hook's answer is due), {@code batch.size}
 * {@value #DEFAULT_BATCH_BYTES} unless the operator's properties say otherwise. Thread-safe.
 */
final class LogClients implements AutoCloseable {

    static final int MAX_IN_FLIGHT_PER_CONNECTION = 5;

    /**
     * The producer's {@code batch.size} unless the operator's properties name it: 64 KiB, where
     * Kafka's default is 16 KiB. A produce request carries at most one batch a partition, and
     * 16 KiB holds only twelve 1 KiB hooks with their headers, so a commit's hooks of one
     * partition went out as several requests, each replicated on its own; the brokers' CPU is
     * spent per request (docs/bench-notes/fleet-ingest-2026-12-07.md). Each new batch takes
     * this much of the producer's 32 MiB {@code buffer.memory} until acknowledged; at most six
     * batches a partition are held (one open, five in flight), 12 MiB for 32 partitions.
     */
    static final int DEFAULT_BATCH_BYTES = 64 * 1024;

    private final KafkaLogSettings settings;
    @GuardedBy("this")
    private Producer<byte[], byte[]> producer;
    @GuardedBy("this")
    private Admin admin;
    @GuardedBy("this")
    private boolean closed;

    LogClients(KafkaLogSettings settings) {
        this.settings = settings;
    }

    /** The shared producer, made at the first call. */
    synchronized Producer<byte[], byte[]> producer() {
        checkOpen();
        if (producer == null) {
            producer = build(() -> new KafkaProducer<>(producerProperties(settings)), "producer");
        }
        return producer;
    }

    /** The admin client, made at the first call. */
    synchronized Admin admin() {
        checkOpen();
        if (admin == null) {
            admin = build(() -> Admin.create(adminProperties(settings)), "admin client");
        }
        return admin;
    }

    /** A new consumer with no group (assign and seek only); the caller closes it. */
    KafkaConsumer<byte[], byte[]> consumer() {
        return build(() -> new KafkaConsumer<>(consumerProperties(settings)), "consumer");
    }

    private <T> T build(java.util.function.Supplier<T> make, String what) {
        try {
            return make.get();
        } catch (KafkaException e) {
            throw new HookStoreException("cannot make the log's " + what + " for " + settings.location() + ": "
                    + e.getMessage(), e);
        }
    }

    @GuardedBy("this")
    private void checkOpen() {
        if (closed) {
            throw new HookStoreException("the log (" + settings.location() + ") is closed");
        }
    }

    static Properties producerProperties(KafkaLogSettings s) {
        Properties p = common(s);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, Integer.toString(MAX_IN_FLIGHT_PER_CONNECTION));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(DEFAULT_BATCH_BYTES));
        p.putAll(s.properties()); // may lower max.in.flight (the reader allows 1 to 5); never names what follows
        ClientKeys.producer(p, s.bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(s.lingerMs()));
        int timeout = (int) Math.min(Integer.MAX_VALUE, s.timeoutMs());
        // the producer requires delivery.timeout.ms >= linger.ms + request.timeout.ms
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(timeout));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(1, timeout - s.lingerMs())));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(timeout));
        return p;
    }

    static Properties adminProperties(KafkaLogSettings s) {
        Properties p = common(s);
        p.putAll(s.properties());
        ClientKeys.brokers(p, s.bootstrapServers());
        ClientKeys.callTimeouts(p, s.timeoutMs());
        return p;
    }

    static Properties consumerProperties(KafkaLogSettings s) {
        Properties p = common(s);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        // a read of a topic not made yet must not make it with the brokers' defaults (LogTopics makes them)
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.putAll(s.properties());
        ClientKeys.consumer(p, s.bootstrapServers());
        ClientKeys.callTimeouts(p, s.timeoutMs());
        return p;
    }

    /** A client's properties with its id; the brokers are set with the store's other keys. */
    private static Properties common(KafkaLogSettings s) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, "sluice-log-" + s.nodeId());
        return p;
    }

    /** Closes the clients, each waiting at most {@code wait}; idempotent. */
    void close(Duration wait) {
        Producer<byte[], byte[]> p;
        Admin a;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            p = producer;
            a = admin;
        }
        if (p != null) {
            p.close(wait);
        }
        if (a != null) {
            a.close(wait);
        }
    }

    @Override
    public void close() {
        close(Duration.ofMillis(settings.timeoutMs()));
    }
}

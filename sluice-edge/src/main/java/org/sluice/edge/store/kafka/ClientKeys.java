package org.sluice.edge.store.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client keys every Kafka client of the store sets the same way, whichever topic it
 * serves: where the brokers are and records as raw bytes both ways; a producer writes with
 * acks=all from an idempotent producer (a record counts once every in-sync replica holds
 * it, and a retried send is not written twice), a consumer never commits offsets on its
 * own (each reader says what it has finished). Called after the operator's properties,
 * which may not name these keys (the configuration refuses them).
 */
final class ClientKeys {

    private ClientKeys() {
    }

    /** Sets the brokers, byte-array serializers, acks=all and idempotence on {@code p}. */
    static void producer(Map<? super String, ? super String> p, List<String> servers) {
        brokers(p, servers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    }

    /** Sets the brokers, byte-array deserializers and no automatic offset commits on {@code p}. */
    static void consumer(Map<? super String, ? super String> p, List<String> servers) {
        brokers(p, servers);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    }

    /**
     * Sets how long a call of an admin client or a consumer may take, at most
     * {@code timeoutMs} (clamped to an int, as the clients read it), on {@code p}.
     */
    static void callTimeouts(Map<? super String, ? super String> p, long timeoutMs) {
        String timeout = Integer.toString((int) Math.min(Integer.MAX_VALUE, timeoutMs));
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout);
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, timeout);
    }

    /** Sets the brokers on {@code p}, as the comma-separated host:port list every client reads. */
    static void brokers(Map<? super String, ? super String> p, List<String> servers) {
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", servers));
    }
}

package org.sluice.edge.delivery;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link KafkaBrokers} a test class shares, owned by JUnit: started before the class's
 * first {@code @BeforeAll} method runs and closed after its last {@code @AfterAll}.
 * Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);
 * }</pre>
 *
 * It offers what {@link KafkaBrokers} does, except {@code close}; {@link #get()} gives the
 * brokers themselves to code that takes a {@link KafkaBrokers}.
 */
public final class KafkaBrokersExtension implements BeforeAllCallback, AfterAllCallback {

    private final int count;
    private final Map<String, String> brokerConfig;
    private KafkaBrokers brokers;

    private KafkaBrokersExtension(int count, Map<String, String> brokerConfig) {
        this.count = count;
        this.brokerConfig = Map.copyOf(brokerConfig);
    }

    /** {@code count} brokers on {@link KafkaBrokers}' default configuration. */
    public static KafkaBrokersExtension brokers(int count) {
        return brokers(count, Map.of());
    }

    /** {@code count} brokers with {@code brokerConfig} set on each (see {@link KafkaBrokers#start}). */
    public static KafkaBrokersExtension brokers(int count, Map<String, String> brokerConfig) {
        return new KafkaBrokersExtension(count, brokerConfig);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        brokers = KafkaBrokers.start(count, brokerConfig);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        // null when starting them failed: JUnit calls afterAll all the same
        if (brokers != null) {
            try {
                brokers.close();
            } finally {
                brokers = null;
            }
        }
    }

    /** The running brokers; only between the class's beforeAll and afterAll. */
    public KafkaBrokers get() {
        if (brokers == null) {
            throw new IllegalStateException("the Kafka brokers run only while their test class does: "
                    + "register KafkaBrokersExtension on a static @RegisterExtension field");
        }
        return brokers;
    }

    // ---------------------------------------------------------------- KafkaBrokers' operations

    public String bootstrapServers() {
        return get().bootstrapServers();
    }

    public void createTopic(String name, int partitions, int replicas, Map<String, String> config) throws Exception {
        get().createTopic(name, partitions, replicas, config);
    }

    public void createTopic(String name, Map<Integer, List<Integer>> replicasByPartition, Map<String, String> config)
            throws Exception {
        get().createTopic(name, replicasByPartition, config);
    }

    public Set<Integer> controllerIds() {
        return get().controllerIds();
    }

    public Set<Integer> brokerIds() {
        return get().brokerIds();
    }

    public void stopBroker(int id) {
        get().stopBroker(id);
    }

    public void startBroker(int id) throws Exception {
        get().startBroker(id);
    }

    public void startBrokers(List<Integer> ids) throws Exception {
        get().startBrokers(ids);
    }

    public List<ConsumerRecord<byte[], byte[]>> readAll(List<String> topics,
            Predicate<List<ConsumerRecord<byte[], byte[]>>> enough) {
        return get().readAll(topics, enough);
    }
}

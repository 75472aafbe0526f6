package org.sluice.edge.server;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.testkit.Eventually;

/**
 * {@link DeliveryParityContract} on {@code store.kind: kafka}, one node: a broker of Kafka's
 * KRaft test kit, as the other one-node tests of this kind use, shared by the class (each
 * case under a topic prefix of its own).
 */
@Tag("slow")
class KafkaDeliveryParityTest extends DeliveryParityContract {

    static final int PARTITIONS = 4;

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @Override
    int nodeCount() {
        return 1;
    }

    @Override
    String storeSections(String prefix) {
        return kafkaStore(brokers.get(), prefix, 1);
    }

    @Override
    void awaitReady(List<Node> nodes, String prefix) {
        super.awaitReady(nodes, prefix);
        awaitPartitionsShared(nodes, prefix);
    }

    /** The {@code store} section of the kafka kind on {@code brokers}. */
    static String kafkaStore(KafkaBrokers brokers, String prefix, int replicas) {
        return """
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: %d, replication_factor: %d, timeout_ms: 5000}
                """.formatted(brokers.bootstrapServers().replace(",", "\", \""), prefix, PARTITIONS, replicas);
    }

    /** Waits until the delivery group has shared every partition of the hooks topic out, some to each node (their metrics). */
    static void awaitPartitionsShared(List<Node> nodes, String prefix) {
        Eventually.until("the partitions shared out", WAIT, () -> {
            int owned = 0;
            for (Node n : nodes) {
                int mine = KafkaFleet.owned(java.net.URI.create("http://127.0.0.1:" + n.admin().getPort()), prefix);
                if (mine <= 0) {
                    return false;
                }
                owned += mine;
            }
            return owned == PARTITIONS;
        });
    }
}

package org.sluice.edge.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.testkit.RedisServer;

/**
 * {@link DeliveryParityContract} on {@code store.kind: kafka}, two {@code sluice serve} nodes
 * in child JVMs sharing the log: three KRaft brokers ({@code min.insync.replicas=2}, replication factor 3) and a real
 * {@code redis-server} as the fleet's Redis (which makes {@code rate} the fleet's), started
 * once for the class; each case under a topic prefix of its own.
 */
@Tag("slow")
class KafkaTwoNodeDeliveryParityTest extends DeliveryParityContract {

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(3, Map.of("min.insync.replicas", "2"));

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    @Override
    int nodeCount() {
        return 2;
    }

    @Override
    String storeSections(String prefix) {
        // a generous fleet budget: a slow Redis answer on a loaded machine must not turn a
        // pass into a fallback, which paces from each node's own share
        return "dedupe: {scope: fleet}\nfleet: {redis: \"" + redis.uri() + "\", timeout_ms: 2000}\n"
                + KafkaDeliveryParityTest.kafkaStore(brokers.get(), prefix, 3);
    }

    @Override
    void awaitReady(List<Node> nodes, String prefix) {
        super.awaitReady(nodes, prefix);
        KafkaDeliveryParityTest.awaitPartitionsShared(nodes, prefix);
    }

    /** {@code sluice serve} in a child JVM on {@code yaml}, written beside its data dir; stopped with SIGTERM. */
    @Override
    Node startNode(String id, String yaml) {
        Path config = dir.resolve(id + ".yaml");
        try {
            Files.writeString(config, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        NatsDeliveryTest.Sluice child = NatsDeliveryTest.Sluice.start(config);
        return new Node(id, child.ingest(), new InetSocketAddress(InetAddress.getLoopbackAddress(), child.admin().getPort()), child::close);
    }
}

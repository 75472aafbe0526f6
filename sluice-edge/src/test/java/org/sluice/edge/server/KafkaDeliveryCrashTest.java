package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.KafkaBrokers.hookIds;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.testkit.ChildJvm;

/**
 * At least once across {@code kill -9}, to Kafka: the real server runs in a child JVM and
 * publishes to a real KRaft broker in this JVM while eight senders post hooks. The server
 * is SIGKILLed mid-stream and started again on the same data dir; every hook that got a
 * {@code 202} must then be in the topic at least once.
 */
class KafkaDeliveryCrashTest {

    static final int ACKS_BEFORE_KILL = 400;

    @TempDir
    Path dir;

    @Test
    void killNineMidStreamLeavesEvery202dHookInTheTopicAfterRestart() throws Exception {
        try (KafkaBrokers kafka = KafkaBrokers.start(1, Map.of())) {
            kafka.createTopic("crash.t", 2, 1, Map.of());
            Path config = dir.resolve("sluice.yaml");
            Files.writeString(config, """
                    node: {id: crash, data_dir: "%s"}
                    admin: {listen: "127.0.0.1:0"}
                    http: {listen: "127.0.0.1:0"}
                    destinations:
                      bus: {type: kafka, bootstrap_servers: ["%s"], topic: "crash.{tenant}", key: source, max_in_flight: 8, timeout_ms: 5000}
                    sources:
                      s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [bus]}
                    """.formatted(dir.resolve("data"), kafka.bootstrapServers()));

            Map<String, String> acked = HookStorm.sendUntilKilled(config, ACKS_BEFORE_KILL + " hooks acknowledged and "
                    + ACKS_BEFORE_KILL / 4 + " in the topic", Duration.ofSeconds(90),
                    acks -> acks >= ACKS_BEFORE_KILL && kafka.readAll(List.of("crash.t"), r -> true).size() >= ACKS_BEFORE_KILL / 4);

            Set<String> ackedIds = new HashSet<>(acked.values());
            try (ChildJvm again = CrashSafetyTest.startServer(config)) {
                CrashSafetyTest.addressOf(again);
                List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(List.of("crash.t"),
                        r -> hookIds(r).containsAll(ackedIds));
                Set<String> missing = new HashSet<>(ackedIds);
                missing.removeAll(hookIds(records)); // a set difference: AssertJ's containsAll scans a list per id
                assertThat(missing).as("202'd hooks not in the topic (of %d)", ackedIds.size()).isEmpty();
                again.terminate();
                again.waitFor(Duration.ofSeconds(60));
            }
        }
    }
}

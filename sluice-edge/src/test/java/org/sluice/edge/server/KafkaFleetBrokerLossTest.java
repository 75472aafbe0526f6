package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.store.kafka.HookRecords;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * {@code store.kind: kafka} losing brokers under load, through the HTTP server: three KRaft
 * brokers, the log's topics with replication factor 3 and {@code min.insync.replicas=2}, a
 * Sluice node in this JVM with four senders posting all along, a real HTTP receiver. One
 * broker down: ingest goes on. Two down: every hook posted is answered {@code 503
 * store_unavailable} with {@code Retry-After}, never 202. Both back: ingest resumes by
 * itself. In the end every hook answered 202 is on the log and delivered.
 */
@Tag("slow")
class KafkaFleetBrokerLossTest {

    private static final int SOURCES = 4;
    private static final String PREFIX = "loss";
    private static final Duration LONG = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    /** One answer to a post, with the phase of the test when it was sent. */
    private record Answer(int phase, int status, String body, String retryAfter) {
    }

    @Test
    void oneBrokerDownIngestGoesOnTwoDownNo202AndBothBackItResumesByItself() throws Exception {
        try (KafkaBrokers brokers = KafkaBrokers.start(3, Map.of());
             HookReceiver receiver = HookReceiver.start()) {
            List<Integer> stoppable = brokers.brokerIds().stream().filter(id -> !brokers.controllerIds().contains(id))
                    .sorted().toList();
            String destination = "{url: \"" + receiver.uri("/in") + "\", retry: {initial_ms: 200, max_ms: 1000}}";
            String yaml = KafkaFleet.yaml("a", dir.resolve("a"), SOURCES, destination, brokers.bootstrapServers(), PREFIX,
                    4, 3).replace("timeout_ms: 5000", "timeout_ms: 3000");
            try (TestEdge node = TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()))) {
                Eventually.until("ready", LONG, () -> Http.get(node.address, "/readyz").status() == 200);

                AtomicInteger phase = new AtomicInteger();
                AtomicBoolean sending = new AtomicBoolean(true);
                Set<String> accepted = ConcurrentHashMap.newKeySet();
                ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
                ExecutorService senders = Executors.newFixedThreadPool(4);
                List<Future<?>> running = new ArrayList<>();
                AtomicInteger numbers = new AtomicInteger();
                for (int s = 0; s < 4; s++) {
                    running.add(senders.submit(() -> {
                        while (sending.get()) {
                            int at = phase.get();
                            Http.Response r = KafkaFleet.post(node.address, SOURCES, numbers.getAndIncrement());
                            if (r.status() == 202) {
                                accepted.add(KafkaFleet.id(r));
                            }
                            answers.add(new Answer(at, r.status(), r.body(), r.header("Retry-After")));
                        }
                        return null;
                    }));
                }
                try {
                    awaitAccepted(answers, 0, 100);

                    brokers.stopBroker(stoppable.get(0));
                    phase.set(1);
                    awaitAccepted(answers, 1, 200); // two of three in sync: ingest goes on

                    brokers.stopBroker(stoppable.get(1));
                    Eventually.until("/readyz says the log is unavailable", LONG,
                            () -> Http.get(node.address, "/readyz").body().contains("log_unavailable"));
                    phase.set(2);
                    Eventually.until("100 hooks refused with two brokers down", LONG, () -> count(answers, 2) >= 100);

                    phase.set(3); // before the brokers come back: from here on a 202 is allowed
                    brokers.startBrokers(stoppable);
                    awaitAccepted(answers, 3, 100); // by itself: nothing restarted on the node
                } finally {
                    sending.set(false);
                    for (Future<?> f : running) {
                        f.get(1, TimeUnit.MINUTES);
                    }
                    senders.shutdown();
                }

                List<Answer> refused = answers.stream().filter(a -> a.phase() == 2).toList();
                assertThat(refused).allSatisfy(a -> {
                    assertThat(a.status()).as(a.body()).isEqualTo(503);
                    assertThat(a.body()).isEqualTo("{\"error\":\"store_unavailable\"}");
                    assertThat(a.retryAfter()).isNotNull();
                });
                for (int p = 0; p < 4; p++) {
                    int at = p;
                    System.out.printf("broker loss: phase %d: %d answered 202, %d answered otherwise%n", p,
                            answers.stream().filter(a -> a.phase() == at && a.status() == 202).count(),
                            answers.stream().filter(a -> a.phase() == at && a.status() != 202).count());
                }

                // no 202 lost: each is on the log, and delivered
                List<ConsumerRecord<byte[], byte[]>> logged = brokers.readAll(List.of(PREFIX + ".hooks"),
                        l -> ids(l).containsAll(accepted));
                Set<String> missing = new HashSet<>(accepted);
                missing.removeAll(ids(logged));
                assertThat(missing).as("202'd hooks not on the log (of %d)", accepted.size()).isEmpty();
                Eventually.until("every 202'd hook delivered", LONG, () -> {
                    Set<String> seen = new HashSet<>();
                    receiver.received().forEach(r -> seen.add(r.header(OutboundHeaders.WEBHOOK_ID)));
                    return seen.containsAll(accepted);
                });
            }
        }
    }

    private static void awaitAccepted(ConcurrentLinkedQueue<Answer> answers, int phase, int n) {
        Eventually.until(n + " hooks accepted in phase " + phase, LONG,
                () -> answers.stream().filter(a -> a.phase() == phase && a.status() == 202).count() >= n);
    }

    private static long count(ConcurrentLinkedQueue<Answer> answers, int phase) {
        return answers.stream().filter(a -> a.phase() == phase).count();
    }

    private static Set<String> ids(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<String> out = new HashSet<>();
        records.forEach(r -> out.add(KafkaBrokers.header(r, HookRecords.ID)));
        return out;
    }
}

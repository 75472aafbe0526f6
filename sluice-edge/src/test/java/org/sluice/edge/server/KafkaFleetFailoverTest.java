package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;

/**
 * Failover of {@code store.kind: kafka} with real processes: three KRaft brokers in this JVM
 * (the log's topics replicated three times, {@code min.insync.replicas=2}), two
 * {@code sluice serve} nodes in child JVMs in one delivery group, a real HTTP receiver.
 * 5,000 hooks are posted to the two nodes alternately while the receiver answers 503, so
 * each node holds its share pending; node A is killed with SIGKILL and its data directory
 * deleted; once the receiver answers 200, node B alone delivers every hook either node
 * answered 202. Prints the failover figure: from the SIGKILL to the first delivery of A's
 * backlog by B (docs/benchmarks.md).
 */
@Tag("slow")
class KafkaFleetFailoverTest {

    private static final int HOOKS = 5_000;
    private static final int SOURCES = 8;
    private static final int PARTITIONS = 8;
    private static final int MAX_IN_FLIGHT = 32;
    private static final String PREFIX = "failover";
    /** The delivery group's session timeout, the follower's default (docs/fleet-log.md). */
    private static final Duration SESSION = Duration.ofSeconds(10);
    private static final Duration LONG = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    @Test
    void aNodeKilledWithItsDiskLostLeavesEveryAcceptedHookToTheOther() throws Exception {
        try (KafkaBrokers brokers = KafkaBrokers.start(3, Map.of());
             HookReceiver receiver = HookReceiver.start().defaultAnswer(Answer.status(503))) {
            // every hook is retried every 2 to 5 s while refused; the breaker never opens, so
            // every hook is attempted; nothing dies of its attempts during the test
            String destination = "{url: \"" + receiver.uri("/in") + "\", max_in_flight: " + MAX_IN_FLIGHT
                    + ", retry: {initial_ms: 2000, max_ms: 5000, max_attempts: 10000}, breaker: {failures: 1000000}}";
            Path aDir = dir.resolve("a");
            NatsDeliveryTest.Sluice a = start("a", aDir, destination, brokers);
            try (NatsDeliveryTest.Sluice b = start("b", dir.resolve("b"), destination, brokers)) {
                Eventually.until("both nodes ready and the partitions shared between them", LONG, () ->
                        Http.get(a.ingest(), "/readyz").status() == 200 && Http.get(b.ingest(), "/readyz").status() == 200
                                && KafkaFleet.owned(a.admin(), PREFIX) > 0 && KafkaFleet.owned(b.admin(), PREFIX) > 0
                                && KafkaFleet.owned(a.admin(), PREFIX) + KafkaFleet.owned(b.admin(), PREFIX) == PARTITIONS);

                Set<String> accepted = postAlternately(a, b);
                assertThat(accepted).as("hooks answered 202").hasSize(HOOKS);
                Eventually.until("every accepted hook attempted and refused", LONG,
                        () -> ids(receiver.received()).containsAll(accepted));

                long killed = System.nanoTime();
                a.jvm().kill();
                a.jvm().waitFor(Duration.ofSeconds(60));
                long exited = System.nanoTime();
                a.close();
                KafkaFleet.deleteTree(aDir);
                assertThat(Files.exists(aDir)).isFalse();
                int before = receiver.requestCount();
                receiver.defaultAnswer(Answer.status(200));
                long answering = System.nanoTime();

                Eventually.until("B owns every partition", LONG, () -> KafkaFleet.owned(b.admin(), PREFIX) == PARTITIONS);
                Eventually.until("every accepted hook delivered", LONG,
                        () -> ids(after(receiver, before)).containsAll(accepted));
                List<Received> delivered = after(receiver, before);
                long lastDelivery = delivered.stream().mapToLong(Received::arrivedNanos).max().orElseThrow();

                // every hook had an attempt refused before the kill, so B's own hooks come back at
                // attempt 2 or later; attempt 1 after A exited is a hook of A's share, read by B
                // from A's committed offset
                long failover = receiver.received().stream()
                        .filter(r -> r.arrivedNanos() > exited && "1".equals(r.header(OutboundHeaders.SLUICE_ATTEMPT)))
                        .mapToLong(Received::arrivedNanos).min().orElseThrow();
                System.out.printf("failover: SIGKILL of node A to B's first delivery of A's backlog: %d ms"
                                + " (session timeout %d ms); receiver answering 200 to the last of %d hooks delivered: %d ms%n",
                        TimeUnit.NANOSECONDS.toMillis(failover - killed), SESSION.toMillis(), HOOKS,
                        TimeUnit.NANOSECONDS.toMillis(lastDelivery - answering));

                // A never had a 200, so it repeated nothing; B delivers each hook once, but for the
                // attempts it had out when the answer changed (at most its max_in_flight)
                Map<String, Integer> copies = new HashMap<>();
                delivered.forEach(r -> copies.merge(r.header(OutboundHeaders.WEBHOOK_ID), 1, Integer::sum));
                assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(accepted);
                int repeats = delivered.size() - copies.size();
                System.out.printf("failover: %d hooks delivered by B, %d repeats%n", copies.size(), repeats);
                assertThat(repeats).as("repeats").isLessThanOrEqualTo(MAX_IN_FLIGHT);
            } finally {
                a.close();
            }
        }
    }

    private NatsDeliveryTest.Sluice start(String name, Path data, String destination, KafkaBrokers brokers)
            throws Exception {
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(config, KafkaFleet.yaml(name, data, SOURCES, destination, brokers.bootstrapServers(), PREFIX,
                PARTITIONS, 3));
        return NatsDeliveryTest.Sluice.start(config);
    }

    /** Posts {@link #HOOKS} hooks, hook n to A when n is even, else to B, from eight senders; the ids answered 202. */
    private static Set<String> postAlternately(NatsDeliveryTest.Sluice a, NatsDeliveryTest.Sluice b) throws Exception {
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        int senders = 8;
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int first = s;
                done.add(pool.submit(() -> {
                    for (int n = first; n < HOOKS; n += senders) {
                        for (int tries = 0; ; tries++) { // an overloaded node's 503 is sent again, as a sender would
                            Http.Response r = KafkaFleet.post(n % 2 == 0 ? a.ingest() : b.ingest(), SOURCES, n);
                            if (r.status() == 202) {
                                accepted.add(KafkaFleet.id(r));
                                break;
                            }
                            assertThat(tries).as("hook %d answered %d %s", n, r.status(), r.body()).isLessThan(20);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return accepted;
    }

    private static List<Received> after(HookReceiver receiver, int before) {
        List<Received> all = receiver.received();
        return all.subList(before, all.size());
    }

    private static Set<String> ids(List<Received> received) {
        Set<String> out = new java.util.HashSet<>();
        received.forEach(r -> out.add(r.header(OutboundHeaders.WEBHOOK_ID)));
        return out;
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.store.kafka.HookRecords;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;

/**
 * {@code fifo} across the fleet on {@code store.kind: kafka}, with real parts: a KRaft broker,
 * Sluice nodes in this JVM on real sockets, a real HTTP receiver. Hooks of each (tenant,
 * source) are posted one after the other to two nodes in turn, the second node's wall clock
 * behind the first's (so its ids sort before the first's: the log's order, not the ids', is
 * acceptance order); one key is refused while another key of its partition keeps flowing;
 * a third node joins in the middle (a rebalance), and later the second leaves while hooks
 * are posted (its partitions move). Per key the receiver must see every hook, first copies
 * in acceptance order.
 */
@Tag("slow")
class KafkaFleetFifoTest {

    private static final int SOURCES = 8;
    private static final int PARTITIONS = 4;
    private static final int PER_PHASE = 240;
    private static final String PREFIX = "fifo";
    /** Node B's wall clock is this far behind node A's. */
    private static final long SKEW_MS = 2_000;
    private static final Duration LONG = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    @Test
    void aRebalanceInTheMiddleOfAFifoStreamKeepsEveryKeysOrderAndAFailingKeyHoldsOnlyItself() throws Exception {
        int[] sourceOf = twoSourcesOfOnePartition();
        String failing = "s" + sourceOf[0];
        String flowing = "s" + sourceOf[1];
        try (KafkaBrokers brokers = KafkaBrokers.start(1, Map.of());
             HookReceiver receiver = HookReceiver.start()) {
            AtomicBoolean refusing = new AtomicBoolean(true);
            Set<Received> refused = ConcurrentHashMap.newKeySet(); // a record holding an array: equal only to itself
            receiver.answerWhen(r -> refusing.get() && failing.equals(r.header(OutboundHeaders.SLUICE_SOURCE))
                    && refused.add(r), Answer.status(503));
            String destination = "{url: \"" + receiver.uri("/in") + "\", ordering: fifo, max_in_flight: 8,"
                    + " retry: {initial_ms: 200, max_ms: 1000, max_attempts: 100000}, breaker: {failures: 1000000}}";
            List<List<String>> accepted = new ArrayList<>();
            for (int s = 0; s < SOURCES; s++) {
                accepted.add(new ArrayList<>());
            }
            TestEdge a = node("a", destination, brokers, 0);
            TestEdge b = null;
            TestEdge c = null;
            try {
                b = node("b", destination, brokers, SKEW_MS);
                TestEdge nodeB = b;
                Eventually.until("the partitions shared between A and B", LONG, () -> owned(a) > 0 && owned(nodeB) > 0
                        && owned(a) + owned(nodeB) == PARTITIONS);

                post(0, PER_PHASE, a, b, accepted);
                List<String> flowingIds = List.copyOf(accepted.get(sourceOf[1]));
                Eventually.until(flowing + " delivered while " + failing + " (same partition) is refused", LONG,
                        () -> ids(receiver.received(), flowing).containsAll(flowingIds)
                                && arrivals(receiver.received(), failing) >= 3);
                // fifo: only the failing key's head was tried; nothing behind it went out
                assertThat(ids(receiver.received(), failing)).containsExactly(accepted.get(sourceOf[0]).get(0));

                // C joins while hooks are posted: a rebalance mid-stream
                CompletableFuture<Void> poster = postAsync(PER_PHASE, 2 * PER_PHASE, a, b, accepted);
                c = node("c", destination, brokers, 0);
                TestEdge nodeC = c;
                poster.get(5, TimeUnit.MINUTES);
                Eventually.until("C in the group, every hooks partition owned", LONG, () -> ownedAny(nodeC) > 0
                        && owned(a) + owned(nodeB) + owned(nodeC) == PARTITIONS);
                System.out.printf("fifo: hooks partitions after C joined: A %d, B %d, C %d%n", owned(a), owned(nodeB),
                        owned(nodeC));

                // B leaves while hooks are posted to A and C, the failing key let through: B's
                // hooks partitions move to the others mid-stream
                refusing.set(false);
                poster = postAsync(2 * PER_PHASE, 3 * PER_PHASE, a, c, accepted);
                b.close();
                b = null;
                poster.get(5, TimeUnit.MINUTES);

                Set<String> all = new HashSet<>();
                accepted.forEach(all::addAll);
                Eventually.until("every hook delivered", LONG, () -> delivered(receiver.received(), refused).containsAll(all));
            } finally {
                for (TestEdge n : new TestEdge[] {c, b, a}) {
                    if (n != null) {
                        n.close();
                    }
                }
            }
            List<Received> seen = receiver.received();
            int repeats = 0;
            for (int s = 0; s < SOURCES; s++) {
                String source = "s" + s;
                List<String> firstCopies = new ArrayList<>(ids(seen, source));
                assertThat(firstCopies).as("first copies of t/%s in acceptance order", source)
                        .containsExactlyElementsOf(accepted.get(s));
                repeats += arrivals(seen, source) - firstCopies.size();
            }
            System.out.printf("fifo: %d hooks, %d arrivals, %d repeats or refused attempts%n",
                    3 * PER_PHASE, seen.size(), repeats);
        }
    }

    private TestEdge node(String name, String destination, KafkaBrokers brokers, long behindMs) {
        String yaml = KafkaFleet.yaml(name, dir.resolve(name), SOURCES, destination, brokers.bootstrapServers(), PREFIX,
                PARTITIONS, 1);
        return TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system())
                .epochMillis(() -> System.currentTimeMillis() - behindMs));
    }

    private static int owned(TestEdge edge) {
        return edge.backends().follower().ownedPartitions().size();
    }

    /** Partitions of the hooks and the retry topic the node owns (the group's assignor balances their sum). */
    private static int ownedAny(TestEdge edge) {
        return owned(edge) + edge.backends().follower().figures().partitionsOwned(PREFIX + ".retry");
    }

    private static CompletableFuture<Void> postAsync(int from, int to, TestEdge a, TestEdge b, List<List<String>> accepted) {
        return CompletableFuture.runAsync(() -> post(from, to, a, b, accepted));
    }

    /**
     * Posts hooks {@code from} to {@code to - 1}, one after the other: hook n to source
     * {@code s<n % SOURCES>}, to A or B in turn per source; records each 202's id under its source.
     */
    private static void post(int from, int to, TestEdge a, TestEdge b, List<List<String>> accepted) {
        for (int n = from; n < to; n++) {
            TestEdge node = (n / SOURCES) % 2 == 0 ? a : b;
            Http.Response r = KafkaFleet.post(node.address, SOURCES, n);
            assertThat(r.status()).as("hook %d: %s", n, r.body()).isEqualTo(202);
            synchronized (accepted) {
                accepted.get(n % SOURCES).add(KafkaFleet.id(r));
            }
        }
    }

    /** Two sources whose keys share a partition of the hooks topic (the producer's partitioner). */
    private static int[] twoSourcesOfOnePartition() {
        Map<Integer, Integer> firstOf = new HashMap<>();
        for (int s = 0; s < SOURCES; s++) {
            int p = Utils.toPositive(Utils.murmur2(HookRecords.key("t", "s" + s))) % PARTITIONS;
            Integer other = firstOf.putIfAbsent(p, s);
            if (other != null) {
                return new int[] {other, s};
            }
        }
        throw new IllegalStateException("eight keys over four partitions always share one");
    }

    /** The ids of {@code source}'s arrivals, each once, in the order first seen. */
    private static Set<String> ids(List<Received> received, String source) {
        Set<String> out = new LinkedHashSet<>();
        for (Received r : received) {
            if (source.equals(r.header(OutboundHeaders.SLUICE_SOURCE))) {
                out.add(r.header(OutboundHeaders.WEBHOOK_ID));
            }
        }
        return out;
    }

    private static int arrivals(List<Received> received, String source) {
        return (int) received.stream().filter(r -> source.equals(r.header(OutboundHeaders.SLUICE_SOURCE))).count();
    }

    /** Ids answered 200: every arrival but those refused. */
    private static Set<String> delivered(List<Received> received, Set<Received> refused) {
        Set<String> out = new HashSet<>();
        for (Received r : received) {
            if (!refused.contains(r)) {
                out.add(r.header(OutboundHeaders.WEBHOOK_ID));
            }
        }
        return out;
    }
}

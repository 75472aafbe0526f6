package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.RedisServer;

/**
 * A destination's {@code rate} is the fleet's under {@code store.kind: kafka} with the
 * fleet's Redis, end to end with real parts: a real {@code redis-server}, a broker of
 * Kafka's KRaft test kit, two Sluice servers in this JVM sharing the log's partitions, and
 * a real HTTP receiver. A backlog held by a pause on both nodes is let go: both nodes
 * deliver, and what the receiver got never exceeds {@code burst + rate x elapsed}, elapsed
 * counted from before the resume (no permit can be granted earlier) to after the count was
 * read: a bound, never a speed. Paced per node, two nodes would send twice that.
 */
class KafkaFleetPacingTest {

    private static final int RATE = 50;
    private static final int BURST = 10;
    /** Several (tenant, source) keys, so that the log's partitions, and the nodes, share the hooks. */
    private static final int SOURCES = 6;

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    private static RedisServer redis;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    private TestEdge node(String name, String prefix, HookReceiver receiver) {
        return node(name, prefix, receiver, "fleet", redis, "timeout_ms: 2000");
    }

    /**
     * {@code dedupeScope} fleet: the fleet's Redis ({@code store}, with the {@code fleet}
     * keys {@code fleetKeys}) in use; node: no fleet scope (the fleet block is then unused).
     */
    private TestEdge node(String name, String prefix, HookReceiver receiver, String dedupeScope, RedisServer store,
                          String fleetKeys) {
        StringBuilder sources = new StringBuilder();
        for (int i = 0; i < SOURCES; i++) {
            sources.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [app]}\n");
        }
        // a generous fleet budget: on a loaded machine a slow Redis answer must not turn into
        // a fallback, which paces from each node's own share and is not the bound under test
        String yaml = """
                node: {id: %s, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                dedupe: {scope: %s}
                fleet: {redis: "%s", %s}
                sources:
                %sdestinations:
                  app: {url: "%s", rate: {rate: %d, burst: %d}}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: 4, replication_factor: 1, timeout_ms: 5000}
                """.formatted(name, dir.resolve(name), dedupeScope, store.uri(), fleetKeys, sources, receiver.uri("/in"), RATE, BURST,
                brokers.bootstrapServers(), prefix);
        return TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()));
    }

    @Test
    void twoNodesTogetherStayWithinOneRateForAFewSeconds() throws Exception {
        pacedAcrossTwoNodes("pace", 200, 120);
    }

    /** The case: {@code rate: 50} served by two nodes, over 20 s. */
    @Test
    @Tag("slow")
    void twoNodesTogetherStayWithinOneRateForTwentySeconds() throws Exception {
        pacedAcrossTwoNodes("pace20", 1_200, BURST + RATE * 20);
    }

    @Test
    void withoutTheFleetsRedisTheBootWarnsThatTheRateIsPerNode() {
        Logger backends = (Logger) LoggerFactory.getLogger(Backends.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        backends.addAppender(logged);
        try (HookReceiver receiver = HookReceiver.start(); TestEdge a = node("a", "alone", receiver, "node", redis, "timeout_ms: 2000")) {
            assertThat(logged.list).anySatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage())
                        .startsWith("destination app is paced at rate 50.0 per node, not for the fleet");
            });
            assertThat(MetricsTest.scrape(a)).doesNotContain("sluice_delivery_pace_leases_total");
        } finally {
            backends.detachAppender(logged);
        }
    }

    /**
     * Redis killed while a node delivers: passes pace from the node's own share
     * ({@code answer="fallback"}) and deliveries go on; Redis back (empty, same port): the
     * fleet client's breaker probes it and passes lease from the fleet's bucket again.
     */
    @Test
    void whileRedisIsDownANodeDeliversPacedFromItsShareThenLeasesFromTheFleetAgain() throws Exception {
        try (RedisServer doomed = RedisServer.start(); HookReceiver receiver = HookReceiver.start();
             TestEdge a = node("a", "down", receiver, "fleet", doomed, "timeout_ms: 200, breaker_open_ms: 500")) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            for (int i = 0; i < 12; i++) {
                accept(a, i);
            }
            TestEdge.await(() -> receiver.requestCount() >= 12);
            assertThat(leases(a, "fleet")).isPositive();

            doomed.kill9();
            for (int i = 12; i < 24; i++) {
                accept(a, i);
            }
            Eventually.until("the hooks accepted with Redis down to be delivered", Duration.ofMinutes(2),
                    () -> receiver.requestCount() >= 24);
            assertThat(leases(a, "fallback")).as("paced from the node's own share").isPositive();

            doomed.restartEmpty();
            double fleetBefore = leases(a, "fleet");
            int[] n = {24};
            // a hook a poll, so that passes keep leasing until the breaker's probe finds Redis back
            Eventually.until("a lease from the fleet's bucket again", Duration.ofMinutes(2), () -> {
                accept(a, n[0]++);
                return leases(a, "fleet") > fleetBefore;
            });
        }
    }

    private static double leases(TestEdge edge, String answer) {
        return series(MetricsTest.scrape(edge), "sluice_delivery_pace_leases_total", "answer=\"" + answer + "\"");
    }

    /**
     * Posts {@code hooks} to both nodes alternately while the destination is paused (on A,
     * for the fleet), resumes it, and waits until the receiver has {@code received} of them
     * (at least {@code (received - burst) / rate} seconds of pacing). Elapsed is counted from
     * before the resume: no permit is granted earlier.
     */
    private void pacedAcrossTwoNodes(String prefix, int hooks, int received) throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge a = node("a", prefix, receiver);
             TestEdge b = node("b", prefix, receiver)) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200
                    && Http.get(b.address, "/readyz").status() == 200);
            TestEdge.await(() -> !a.backends().follower().ownedPartitions().isEmpty()
                    && !b.backends().follower().ownedPartitions().isEmpty()
                    && a.backends().follower().ownedPartitions().size()
                    + b.backends().follower().ownedPartitions().size() == 4);
            Http.Response paused = admin(a, "POST", "/v1/destinations/app/pause");
            assertThat(paused.status()).as(paused.body()).isEqualTo(200);
            TestEdge.await(() -> b.backends().overrides().pausedDestinations().contains("app"));
            for (int i = 0; i < hooks; i++) {
                accept(i % 2 == 0 ? a : b, i);
            }
            assertThat(receiver.requestCount()).as("nothing sent while paused").isZero();

            long startNanos = System.nanoTime();
            Http.Response resumed = admin(b, "POST", "/v1/destinations/app/resume");
            assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
            Eventually.until("the receiver to get " + received + " hooks", Duration.ofMinutes(3),
                    () -> receiver.requestCount() >= received);
            int count = receiver.requestCount();
            double elapsed = (System.nanoTime() - startNanos) / (double) TimeUnit.SECONDS.toNanos(1);

            assertThat(count).as("received in %.2f s by two nodes at rate %d, burst %d", elapsed, RATE, BURST)
                    .isLessThanOrEqualTo(BURST + (int) Math.ceil(RATE * elapsed));
            for (TestEdge edge : new TestEdge[] {a, b}) {
                String m = MetricsTest.scrape(edge);
                assertThat(series(m, "sluice_delivery_pace_leases_total", "answer=\"fallback\""))
                        .as("no pass paced without the fleet (the bound holds for the fleet's bucket)").isZero();
                assertThat(series(m, "sluice_delivery_pace_leases_total", "answer=\"fleet\"")).isPositive();
            }
            TestEdge.await(() -> delivered(a) > 0 && delivered(b) > 0); // both nodes delivered their share
            System.out.printf("%d hooks received in %.2f s (bound %d)%n", count, elapsed,
                    BURST + (int) Math.ceil(RATE * elapsed));
        }
    }

    private Http.Response admin(TestEdge edge, String method, String path) throws Exception {
        String token = Files.readString(dir.resolve(edge.server.config().node().id()).resolve("admin.token")).strip();
        InetSocketAddress at = edge.server.adminAddress();
        try (Http http = Http.connect(new InetSocketAddress("127.0.0.1", at.getPort()))) {
            return http.request(method, path, Map.of("Authorization", "Bearer " + token), new byte[0]);
        }
    }

    private static double delivered(TestEdge edge) {
        return series(MetricsTest.scrape(edge), "sluice_delivery_attempts_total", "outcome=\"delivered\"");
    }

    /** The sum of the series of metric {@code name} for destination app whose labels include {@code label}. */
    private static double series(String scrape, String name, String label) {
        double sum = 0;
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") && line.contains("destination=\"app\"") && line.contains(label)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).strip());
            }
        }
        return sum;
    }

    private static void accept(TestEdge edge, int n) {
        Http.Response r = Http.post(edge.address, "/hooks/s" + (n % SOURCES), Map.of("Content-Type", "application/json"),
                ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
    }
}

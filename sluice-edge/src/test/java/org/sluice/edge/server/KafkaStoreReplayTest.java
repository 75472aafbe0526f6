package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.UuidV7;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * Replays on {@code store.kind: kafka}, end to end with real parts (Sluice servers in this
 * JVM on real sockets, a broker of Kafka's KRaft test kit, real HTTP receivers): a replay
 * started on node B reads the hooks topic and delivers again every hook of the range that
 * either node accepted, to the destination named, and only those; a {@code dead_only} replay
 * started on B redelivers the fleet's dead letters of the range to the destination, and only
 * those; the replay routes' 429, 409, 400 and 404.
 */
class KafkaStoreReplayTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Several (tenant, source) keys to {@code app}, so that the hooks spread over the partitions and both nodes. */
    private static final int SOURCES = 4;

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    /**
     * Sources s0..s3 deliver to {@code app} (the receiver's /app), source o to {@code other} (its
     * /other); the breakers stay closed through the dead-letter test's run of 410s.
     */
    private TestEdge node(String name, String prefix, HookReceiver receiver) {
        StringBuilder sources = new StringBuilder();
        for (int i = 0; i < SOURCES; i++) {
            sources.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [app]}\n");
        }
        sources.append("  o: {tenant: t, verify: {scheme: none}, deliver_to: [other]}\n");
        String yaml = """
                node: {id: %s, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                %sdestinations:
                  app: {url: "%s", breaker: {failures: 1000}}
                  other: {url: "%s", breaker: {failures: 1000}}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: 4, replication_factor: 1, timeout_ms: 5000}
                """.formatted(name, dir.resolve(name), sources, receiver.uri("/app"), receiver.uri("/other"),
                brokers.bootstrapServers(), prefix);
        return TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()));
    }

    @Test
    void aReplayStartedOnBDeliversAgainEveryHookOfTheRangeThatEitherNodeAccepted() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge a = node("a", "replay", receiver);
             TestEdge b = node("b", "replay", receiver)) {
            Accepted hooks = Accepted.onBoth(a, b);
            List<String> before = hooks.before();
            long from = hooks.from();
            List<String> inRange = hooks.inRange();
            List<String> otherInRange = hooks.otherInRange();
            long to = hooks.to();
            List<String> after = hooks.after();

            List<String> app = new ArrayList<>(before);
            app.addAll(inRange);
            app.addAll(after);
            TestEdge.await(() -> count(receiver, "/app") == app.size() && count(receiver, "/other") == otherInRange.size());
            assertThat(received(receiver, "/app")).as("each hook once before the replay").containsOnlyKeys(app)
                    .allSatisfy((id, n) -> assertThat(n).isEqualTo(1));

            String body = "{\"from\":\"%s\",\"to\":\"%s\",\"rate\":1000}".formatted(Instant.ofEpochMilli(from),
                    Instant.ofEpochMilli(to));
            Http.Response started = admin(b, "POST", "/v1/destinations/app/replay", body);
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            JsonNode answer = JSON.readTree(started.body());
            assertThat(answer.get("scheduled").asLong()).as("the records stamped in the range, of every source")
                    .isEqualTo(inRange.size() + otherInRange.size());
            String replay = answer.get("replay").asText();

            TestEdge.await(() -> {
                JsonNode p = progress(b, replay);
                return p.get("state").asText().equals("done") && p.get("delivered").asLong() == inRange.size();
            });
            JsonNode done = progress(b, replay);
            assertThat(done.get("scheduled").asLong()).as("the hooks of the range to app").isEqualTo(inRange.size());
            assertThat(done.get("dead").asLong()).isZero();
            TestEdge.await(() -> count(receiver, "/app") == app.size() + inRange.size());
            Map<String, Integer> seen = received(receiver, "/app");
            assertThat(seen).containsOnlyKeys(app);
            for (String id : app) {
                assertThat(seen.get(id)).as(id + (inRange.contains(id) ? " in the range" : " outside it"))
                        .isEqualTo(inRange.contains(id) ? 2 : 1);
            }
            assertThat(received(receiver, "/other")).as("the other destination's hooks are not replayed")
                    .containsOnlyKeys(otherInRange).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
            assertThat(admin(a, "GET", "/v1/replays/" + replay, null).status())
                    .as("a replay's progress is the node's that runs it").isEqualTo(404);
        }
    }

    /**
     * Hooks accepted on A and B alternately die (the receiver answering 410), before, in and
     * after a range, to {@code app} and to {@code other}; once the receiver answers 200, a
     * {@code dead_only} replay started on B redelivers exactly the dead letters of the range
     * to {@code app}, through the retry topic, and they leave both nodes' lists while the
     * others stay.
     */
    @Test
    void aDeadOnlyReplayStartedOnBRedeliversTheFleetsDeadLettersOfTheRange() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge a = node("a", "deadonly", receiver);
             TestEdge b = node("b", "deadonly", receiver)) {
            receiver.defaultAnswer(HookReceiver.Answer.status(410));
            Accepted hooks = Accepted.onBoth(a, b);
            List<String> inRange = hooks.inRange();
            List<String> stillDead = new ArrayList<>(hooks.before());
            stillDead.addAll(hooks.otherInRange());
            stillDead.addAll(hooks.after());
            List<String> all = new ArrayList<>(stillDead);
            all.addAll(inRange);
            Eventually.until("every hook dead, listed by both nodes", LONG_WAIT,
                    () -> deadLetterIds(a).containsAll(all) && deadLetterIds(b).containsAll(all));
            assertThat(received(receiver, "/app")).as("one attempt each, answered 410").hasSize(18)
                    .allSatisfy((id, n) -> assertThat(n).isEqualTo(1));

            receiver.defaultAnswer(HookReceiver.Answer.status(200));
            String body = "{\"from\":\"%s\",\"to\":\"%s\",\"dead_only\":true,\"rate\":1000}".formatted(
                    Instant.ofEpochMilli(hooks.from()), Instant.ofEpochMilli(hooks.to()));
            Http.Response started = admin(b, "POST", "/v1/destinations/app/replay", body);
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            JsonNode answer = JSON.readTree(started.body());
            assertThat(answer.get("scheduled").asLong()).as("the dead letters of the range to app")
                    .isEqualTo(inRange.size());
            String replay = answer.get("replay").asText();

            Eventually.until("the replay done", LONG_WAIT, () -> progress(b, replay).get("state").asText().equals("done"));
            assertThat(progress(b, replay).get("scheduled").asLong()).isEqualTo(inRange.size());
            Eventually.until("the range's dead letters delivered", LONG_WAIT,
                    () -> inRange.stream().allMatch(id -> Integer.valueOf(2).equals(received(receiver, "/app").get(id))));
            Eventually.until("the range's dead letters gone from both lists, the others kept", LONG_WAIT,
                    () -> deadLetterIds(a).equals(new TreeSet<>(stillDead)) && deadLetterIds(b).equals(new TreeSet<>(stillDead)));
            Map<String, Integer> seen = received(receiver, "/app");
            for (String id : seen.keySet()) {
                assertThat(seen.get(id)).as(id + (inRange.contains(id) ? " in the range" : " outside it"))
                        .isEqualTo(inRange.contains(id) ? 2 : 1);
            }
            assertThat(received(receiver, "/other")).as("the other destination's dead letters are not redelivered")
                    .containsOnlyKeys(hooks.otherInRange()).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
        }
    }

    @Test
    void theReplayRoutesRefuseAsOnTheRocksDbStore() throws Exception {
        try (HookReceiver receiver = HookReceiver.start(); TestEdge a = node("a", "refusals", receiver)) {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200);
            List<String> hooks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                hooks.add(accept(a, "s0", i));
            }
            long from = millis(hooks.get(0));
            long to = nextMillisAfter(hooks);
            // at one hook a second, twenty hooks keep a replay running for nineteen seconds at least
            String slow = "{\"from\":\"%s\",\"to\":\"%s\",\"rate\":1}".formatted(Instant.ofEpochMilli(from),
                    Instant.ofEpochMilli(to));
            for (int i = 0; i < 2; i++) {
                Http.Response r = admin(a, "POST", "/v1/destinations/app/replay", slow);
                assertThat(r.status()).as(r.body()).isEqualTo(202);
            }
            Http.Response third = admin(a, "POST", "/v1/destinations/app/replay", slow);
            assertThat(third.status()).as(third.body()).isEqualTo(429);
            assertThat(JSON.readTree(third.body()).get("error").asText()).isEqualTo("too_many_replays");

            String wide = "{\"from\":\"%s\",\"to\":\"%s\"}".formatted(Instant.ofEpochMilli(to).minusSeconds(40L * 86_400),
                    Instant.ofEpochMilli(to));
            Http.Response tooWide = admin(a, "POST", "/v1/destinations/other/replay", wide);
            assertThat(tooWide.status()).as(tooWide.body()).isEqualTo(409);
            assertThat(JSON.readTree(tooWide.body()).get("error").asText()).isEqualTo("force_required");
            Http.Response forced = admin(a, "POST", "/v1/destinations/other/replay",
                    wide.replace("}", ",\"force\":true}"));
            assertThat(forced.status()).as(forced.body()).isEqualTo(202);

            Http.Response backwards = admin(a, "POST", "/v1/destinations/other/replay",
                    "{\"from\":\"%s\",\"to\":\"%s\"}".formatted(Instant.ofEpochMilli(to), Instant.ofEpochMilli(from)));
            assertThat(backwards.status()).as(backwards.body()).isEqualTo(400);
            assertThat(JSON.readTree(backwards.body()).get("error").asText()).isEqualTo("invalid_replay");

            Http.Response deadOnly = admin(a, "POST", "/v1/destinations/other/replay",
                    slow.replace("}", ",\"dead_only\":true}"));
            assertThat(deadOnly.status()).as("no dead letter in the range: " + deadOnly.body()).isEqualTo(202);
            assertThat(JSON.readTree(deadOnly.body()).get("scheduled").asLong()).isZero();

            assertThat(admin(a, "POST", "/v1/destinations/nowhere/replay", slow).status()).isEqualTo(404);
            Http.Response unknown = admin(a, "GET", "/v1/replays/" + UUID.randomUUID(), null);
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(JSON.readTree(unknown.body()).get("error").asText()).isEqualTo("replay_not_found");
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Hooks posted to two nodes once both are ready and own partitions: six to {@code app}
     * before {@code from}, six to {@code app} and six to {@code other} in {@code [from, to)},
     * six to {@code app} after.
     */
    private record Accepted(List<String> before, long from, List<String> inRange, List<String> otherInRange, long to,
                            List<String> after) {

        static Accepted onBoth(TestEdge a, TestEdge b) throws Exception {
            TestEdge.await(() -> Http.get(a.address, "/readyz").status() == 200
                    && Http.get(b.address, "/readyz").status() == 200);
            TestEdge.await(() -> !a.backends().follower().ownedPartitions().isEmpty()
                    && !b.backends().follower().ownedPartitions().isEmpty());
            List<String> before = acceptSome(a, b, 0, false);
            long from = nextMillisAfter(before);
            List<String> inRange = acceptSome(a, b, 100, false);
            List<String> otherInRange = acceptSome(a, b, 200, true);
            long to = nextMillisAfter(inRange, otherInRange);
            List<String> after = acceptSome(a, b, 300, false);
            assertThat(millis(inRange.get(0))).isGreaterThanOrEqualTo(from);
            assertThat(millis(otherInRange.get(0))).isGreaterThanOrEqualTo(from);
            return new Accepted(before, from, inRange, otherInRange, to, after);
        }
    }

    /** Generous: a rebalance, dead letters read by both nodes, on a loaded machine. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(90);

    private Set<String> deadLetterIds(TestEdge edge) {
        return KafkaNodes.deadLetterIds(dir, edge);
    }

    /** Six hooks, posted to A and B alternately: to {@code app} (sources s0..s3), or to {@code other} (source o). */
    private static List<String> acceptSome(TestEdge a, TestEdge b, int first, boolean toOther) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = first; i < first + 6; i++) {
            ids.add(accept(i % 2 == 0 ? a : b, toOther ? "o" : "s" + (i % SOURCES), i));
        }
        return ids;
    }

    /** The millisecond after the newest of these hooks' ids, once the wall clock has passed it. */
    @SafeVarargs
    private static long nextMillisAfter(List<String>... batches) {
        long newest = 0;
        for (List<String> ids : batches) {
            for (String id : ids) {
                newest = Math.max(newest, millis(id));
            }
        }
        long next = newest + 1;
        TestEdge.await(() -> System.currentTimeMillis() > next);
        return next;
    }

    private static long millis(String id) {
        return UuidV7.millisOf(UUID.fromString(id));
    }

    private static int count(HookReceiver receiver, String path) {
        return (int) receiver.received().stream().filter(r -> r.path().equals(path)).count();
    }

    /** Per webhook-id, the requests the receiver took on {@code path}. */
    private static Map<String, Integer> received(HookReceiver receiver, String path) {
        Map<String, Integer> seen = new HashMap<>();
        for (HookReceiver.Received r : receiver.received()) {
            if (r.path().equals(path)) {
                seen.merge(r.header("webhook-id"), 1, Integer::sum);
            }
        }
        return seen;
    }

    private JsonNode progress(TestEdge edge, String replay) {
        try {
            Http.Response r = admin(edge, "GET", "/v1/replays/" + replay, null);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String accept(TestEdge edge, String source, int n) throws Exception {
        return KafkaNodes.accept(edge, source, n);
    }

    private Http.Response admin(TestEdge edge, String method, String path, String body) throws Exception {
        return KafkaNodes.admin(dir, edge, method, path, body);
    }
}

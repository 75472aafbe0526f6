package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.StoredHook;
import org.sluice.fleet.BreakerState;
import org.sluice.fleet.FleetKind;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.RedisServer;

/**
 * {@code rate_limits.scope: fleet} and {@code dedupe.scope: fleet} end to end: two real edge
 * servers on their own ports and data dirs, one real Redis between them, real HTTP.
 */
class FleetScopeTest {

    @TempDir
    Path dir;

    private RedisServer redis;
    private final List<TestEdge> edges = new ArrayList<>();

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stopAll() {
        for (TestEdge edge : edges) {
            edge.close();
        }
        redis.close();
    }

    private TestEdge node(String name, String limit, String fleetExtra) {
        TestEdge edge = TestEdge.start(dir.resolve(name), """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  scope: fleet
                  tenants:
                    acme: %s
                dedupe: {scope: fleet}
                fleet: {redis: "%s"%s}
                sources:
                  open: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(limit, redis.uri(), fleetExtra));
        edges.add(edge);
        return edge;
    }

    private static Http.Response post(TestEdge edge, String eventId) {
        Map<String, String> headers = eventId == null ? Map.of() : Map.of("X-Event-Id", eventId);
        return edge.post("/hooks/open", headers, "{\"n\":1}");
    }

    private static long stored(TestEdge edge, String eventId) {
        return StoredHooks.all(edge.backends().store()).stream()
                .filter(h -> eventId.equals(dedupeKey(h))).count();
    }

    private static String dedupeKey(StoredHook hook) {
        return hook.dedupeKey();
    }

    @Test
    void twoNodesShareOneLimit() throws Exception {
        // a generous budget: this test is about the shared count, not about outages
        TestEdge a = node("a", "{rate: 5, burst: 10}", ", timeout_ms: 2000");
        TestEdge b = node("b", "{rate: 5, burst: 10}", ", timeout_ms: 2000");
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        long start = System.nanoTime();
        try {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                TestEdge target = t % 2 == 0 ? a : b;
                all.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 40; i++) {
                        int status = post(target, null).status();
                        assertThat(status).isIn(202, 429);
                        (status == 202 ? admitted : refused).incrementAndGet();
                    }
                }, pool));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        } finally {
            pool.shutdownNow();
        }
        double elapsedSeconds = (System.nanoTime() - start) / 1e9;
        // no answer came from a node alone: otherwise the bound below would not be the fleet's
        for (TestEdge edge : List.of(a, b)) {
            assertThat(edge.backends().fleet().client().fallbackTotal(FleetKind.RATE_LIMIT)).isZero();
        }
        assertThat(admitted.get() + refused.get()).isEqualTo(320);
        // one limit across both nodes: burst + rate x T (two node-local limits would allow twice that)
        assertThat(admitted.get()).isGreaterThanOrEqualTo(10)
                .isLessThanOrEqualTo((int) Math.ceil(10 + 5 * elapsedSeconds));
        assertThat(StoredHooks.all(a.backends().store()).size() + StoredHooks.all(b.backends().store()).size())
                .isEqualTo(admitted.get());
    }

    @Test
    void anEventStoredOnOneNodeIsADuplicateOnTheOther() throws Exception {
        TestEdge a = node("a", "{rate: 1000, burst: 1000}", ", timeout_ms: 2000");
        TestEdge b = node("b", "{rate: 1000, burst: 1000}", ", timeout_ms: 2000");
        Http.Response first = post(a, "evt-1");
        assertThat(first.status()).isEqualTo(202);
        String id = json(first).get("id").asText();
        // until A's settle reaches Redis, B is told to retry (409); it never stores the event
        AtomicReference<Http.Response> last = new AtomicReference<>();
        List<Http.Response> told409 = new ArrayList<>();
        Eventually.until("B to stop answering 409", () -> {
            Http.Response r = post(b, "evt-1");
            last.set(r);
            if (r.status() == 409) {
                told409.add(r);
                return false;
            }
            return true;
        });
        for (Http.Response r : told409) {
            assertThat(json(r).get("error").asText()).isEqualTo("dedupe_pending");
            assertThat(json(r).get("retry_after_ms").asLong()).isPositive();
            assertThat(r.headers().get("retry-after")).isNotNull();
        }
        Http.Response onB = last.get();
        assertThat(onB.status()).isEqualTo(200);
        assertThat(json(onB).get("status").asText()).isEqualTo("duplicate");
        assertThat(json(onB).get("id").asText()).isEqualTo(id);
        assertThat(stored(a, "evt-1") + stored(b, "evt-1")).isEqualTo(1);
    }

    @Test
    void theSameEventToBothNodesAtOnceIsStoredOnce() throws Exception {
        TestEdge a = node("a", "{rate: 1000, burst: 1000}", ", timeout_ms: 2000");
        TestEdge b = node("b", "{rate: 1000, burst: 1000}", ", timeout_ms: 2000");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int e = 0; e < 20; e++) {
                String event = "race-" + e;
                CompletableFuture<Http.Response> toA = CompletableFuture.supplyAsync(() -> post(a, event), pool);
                CompletableFuture<Http.Response> toB = CompletableFuture.supplyAsync(() -> post(b, event), pool);
                List<Http.Response> answers = List.of(toA.join(), toB.join());
                List<Integer> statuses = answers.stream().map(Http.Response::status).toList();
                assertThat(statuses).as(event).containsOnlyOnce(202);
                assertThat(statuses).as(event).allMatch(s -> s == 202 || s == 200 || s == 409);
                String id = null;
                for (Http.Response r : answers) {
                    if (r.status() == 202) {
                        id = json(r).get("id").asText();
                    }
                }
                for (Http.Response r : answers) {
                    if (r.status() == 200) {
                        assertThat(json(r).get("id").asText()).as(event).isEqualTo(id);
                    }
                }
                assertThat(stored(a, event) + stored(b, event)).as(event).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRedisOutageRefusesNoHookAndRecovers() throws Exception {
        TestEdge a = node("a", "{rate: 1, burst: 1000}",
                ", timeout_ms: 200, breaker_min_calls: 5, breaker_open_ms: 300");
        for (int i = 0; i < 20; i++) {
            assertThat(post(a, "before-" + i).status()).isEqualTo(202);
        }
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"rate_limit\"")).isEqualTo(0.0);
        redis.kill9();
        // every hook is answered node-local: within the node's limit, all accepted
        for (int i = 0; i < 100; i++) {
            Http.Response r = post(a, "during-" + i);
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
        }
        assertThat(a.backends().fleet().client().fallbackTotal(FleetKind.RATE_LIMIT)).isGreaterThanOrEqualTo(100);
        assertThat(a.backends().fleet().client().fallbackTotal(FleetKind.DEDUPE)).isGreaterThanOrEqualTo(100);
        assertThat(metric(a, "sluice_fleet_fallback_total{kind=\"rate_limit\"")).isGreaterThanOrEqualTo(100.0);
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"rate_limit\"")).isEqualTo(1.0);
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"dedupe\"")).isEqualTo(1.0);
        JsonNode fleet = admission(a).get("fleet");
        assertThat(fleet.get("degraded").toString()).contains("rate_limit", "dedupe");
        assertThat(fleet.get("fallback").get("rate_limit").asLong()).isGreaterThanOrEqualTo(100);
        // the node's own index still answers duplicates while Redis is gone
        Http.Response again = post(a, "during-0");
        assertThat(again.status()).isEqualTo(200);

        redis.restartEmpty();
        postUntilOutOfFallback(a, "rate_limit", "after-");
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"rate_limit\"")).isEqualTo(0.0);
        assertThat(a.backends().fleet().client().state()).isEqualTo(BreakerState.CLOSED);
        assertThat(admission(a).get("fleet").get("breaker").asText()).isEqualTo("closed");
    }

    @Test
    void aPausedRedisCostsTheBudgetThenFallsBackAndComesBack() throws Exception {
        TestEdge a = node("a", "{rate: 1, burst: 1000}",
                ", timeout_ms: 100, breaker_min_calls: 5, breaker_open_ms: 300");
        assertThat(post(a, "warm").status()).isEqualTo(202);
        redis.pause(); // SIGSTOP: connections stay open, nothing is answered
        for (int i = 0; i < 30; i++) {
            Http.Response r = post(a, "paused-" + i);
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
        }
        var stats = a.backends().fleet().client().stats();
        assertThat(stats.fallbackTimeout()).isPositive();            // calls gave up at the budget
        assertThat(stats.fallbackRateLimit()).isGreaterThanOrEqualTo(30);
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"dedupe\"")).isEqualTo(1.0);
        redis.resume();
        postUntilOutOfFallback(a, "dedupe", "resumed-");
        assertThat(metric(a, "sluice_fleet_limiter_degraded{kind=\"dedupe\"")).isEqualTo(0.0);
        assertThat(a.backends().fleet().client().state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void aClaimRefusedLaterOnItsNodeIsReleasedForTheOthers() throws Exception {
        // dedupe in the fleet, rates per node: node A's own quota refuses the hook after its claim
        String yaml = """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  tenants:
                    acme: {rate: 0.00001, burst: 1}
                dedupe: {scope: fleet}
                fleet: {redis: "%s", timeout_ms: 2000, pending_ttl_ms: 600000}
                sources:
                  open: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(redis.uri());
        TestEdge a = TestEdge.start(dir.resolve("a"), yaml);
        edges.add(a);
        TestEdge b = TestEdge.start(dir.resolve("b"), yaml);
        edges.add(b);
        assertThat(post(a, "first").status()).isEqualTo(202);
        Http.Response refused = post(a, "second");
        assertThat(refused.status()).isEqualTo(429);
        // the claim A made for "second" is released (not left pending for 10 minutes): B stores it
        AtomicReference<Http.Response> last = new AtomicReference<>();
        Eventually.until("B to stop answering 409", () -> {
            last.set(post(b, "second"));
            return last.get().status() != 409;
        });
        Http.Response onB = last.get();
        assertThat(onB.status()).as(onB.toString()).isEqualTo(202);
        assertThat(stored(a, "second") + stored(b, "second")).isEqualTo(1);
        TestEdge.await(() -> a.backends().fleet().client().stats().settleReleased() == 1); // its counter follows the reply
    }

    @Test
    void theFallbackChargesTheLimitSharedByTheLiveNodes() throws Exception {
        TestEdge a = node("a", "{rate: 1, burst: 10}", ", timeout_ms: 200");
        TestEdge b = node("b", "{rate: 1, burst: 10}", ", timeout_ms: 200");
        Eventually.until("both nodes to see two live nodes (heartbeats run every second)",
                () -> a.backends().fleet().client().liveNodes() == 2 && b.backends().fleet().client().liveNodes() == 2);
        assertThat(a.backends().fleet().client().liveNodes()).isEqualTo(2);
        assertThat(b.backends().fleet().client().liveNodes()).isEqualTo(2);
        redis.kill9();
        int admitted = 0;
        for (TestEdge edge : List.of(a, b)) {
            for (int i = 0; i < 12; i++) {
                int status = post(edge, null).status();
                assertThat(status).isIn(202, 429);
                admitted += status == 202 ? 1 : 0;
            }
        }
        // each node charges half the limit (the manual clock stands still): one burst across the fleet
        assertThat(admitted).isEqualTo(10);
        assertThat(admission(a).get("fleet").get("live_nodes").asInt()).isEqualTo(2);
    }

    @Test
    void anOverrideChangeResetsTheTenantsFleetBuckets() throws Exception {
        // one hook a day: the fleet bucket does not refill while the test runs
        TestEdge a = node("a", "{rate: 0.00001, burst: 2}", ", timeout_ms: 2000");
        TestEdge b = node("b", "{rate: 0.00001, burst: 2}", ", timeout_ms: 2000");
        assertThat(post(a, null).status()).isEqualTo(202);
        assertThat(post(b, null).status()).isEqualTo(202);
        Http.Response refused = post(a, null);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(json(refused).get("scope").asText()).isEqualTo("tenant");
        assertThat(refused.headers().get("retry-after")).isNotNull();
        assertThat(refused.headers()).doesNotContainKey("ratelimit"); // the node does not know the fleet's bucket
        assertThat(post(b, null).status()).isEqualTo(429);
        // the override goes to node A only; the reset empties the buckets every node shares
        assertThat(admin(a, "PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":0.00001,\"burst\":2}").statusCode())
                .isEqualTo(200);
        assertThat(post(b, null).status()).isEqualTo(202);
        assertThat(post(b, null).status()).isEqualTo(202);
        assertThat(post(b, null).status()).isEqualTo(429);
    }

    /**
     * Posts new events to {@code node} (each must be accepted) until its {@code kind} limiter
     * is no longer degraded: a wait for the breaker's probe, not for a bucket to refill.
     */
    private static void postUntilOutOfFallback(TestEdge node, String kind, String eventPrefix) {
        AtomicInteger n = new AtomicInteger();
        Eventually.until(kind + " to leave fallback", () -> {
            if (metric(node, "sluice_fleet_limiter_degraded{kind=\"" + kind + "\"") == 0.0) {
                return true;
            }
            assertThat(post(node, eventPrefix + n.getAndIncrement()).status()).isEqualTo(202);
            return false;
        });
    }

    private static double metric(TestEdge edge, String prefix) {
        String text = Http.get(edge.server.adminAddress(), "/metrics").body();
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no metric " + prefix + " in /metrics");
    }

    private static java.net.http.HttpResponse<String> admin(TestEdge edge, String method, String path, String body)
            throws Exception {
        String token = java.nio.file.Files.readString(edge.server.config().node().dataDir().resolve("admin.token")).strip();
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        "http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .header("Authorization", "Bearer " + token)
                .method(method, java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private JsonNode admission(TestEdge edge) throws Exception {
        String token = java.nio.file.Files.readString(edge.server.config().node().dataDir().resolve("admin.token")).strip();
        var client = java.net.http.HttpClient.newHttpClient();
        var response = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        "http://127.0.0.1:" + edge.server.adminAddress().getPort() + "/v1/admission"))
                .header("Authorization", "Bearer " + token).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return new ObjectMapper().readTree(response.body());
    }
}

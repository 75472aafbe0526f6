package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.LimitsCommand;
import org.sluice.edge.cli.TailCommand;
import org.sluice.edge.store.rocks.StoreFaults;
import picocli.CommandLine;

/**
 * The admin API on the real server: real sockets, real HTTP, the RocksDB store in a temp
 * dir, the limiter on a manual clock (counts are exact; nothing sleeps for a refill).
 */
class AdminEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private static final String CONFIG = """
            http: {listen: "127.0.0.1:0", max_body_bytes: 100000}
            rate_limits:
              per_ip: {rate: 100000, burst: 100000}
              node: {rate: 100000, burst: 100000}
              tenants:
                acme: {rate: 1, burst: 2}
                bulk: {rate: 100000, burst: 100000}
            sources:
              open: {tenant: acme, verify: {scheme: none}}
              many: {tenant: bulk, verify: {scheme: none}, store_headers: [X-N]}
            """;

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ helpers

    record Answer(int status, Map<String, List<String>> headers, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    private static String adminUrl(TestEdge edge) {
        return "http://127.0.0.1:" + edge.server.adminAddress().getPort();
    }

    private static Answer call(TestEdge edge, String method, String path, String token, String body, String... headers) {
        return call(adminUrl(edge), method, path, token, body, headers);
    }

    private static Answer call(String url, String method, String path, String token, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.headers().map(), r.body());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + " failed", e);
        }
    }

    private String token() throws Exception {
        return Files.readString(dir.resolve("admin.token")).strip();
    }

    /** Posts one hook to source {@code source} and returns the status. */
    private static int ingest(TestEdge edge, String source) {
        return edge.post("/hooks/" + source, Map.of("Content-Type", "application/json"), "{\"n\":1}").status();
    }

    /** Posts until the first 429 (at most 1000) and returns how many were accepted (202). */
    private static int acceptedUntilRefused(TestEdge edge) {
        for (int accepted = 0; accepted < 1000; accepted++) {
            int status = ingest(edge, "open");
            if (status == 429) {
                return accepted;
            }
            assertThat(status).isEqualTo(202);
        }
        throw new AssertionError("never refused");
    }

    // ------------------------------------------------------------------ routes and statuses

    @Test
    void everyRouteOnTheAdminListenerWithTheGeneratedToken() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            Path file = dir.resolve("admin.token");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            String token = token();

            for (String path : new String[] {"/v1/rate-limits", "/v1/tenants/acme/rate-limit", "/v1/audit",
                    "/v1/hooks", "/v1/admission", "/v1/hooks/x", "/v1/unknown"}) {
                Answer none = call(edge, "GET", path, null, null);
                assertThat(none.status()).as(path).isEqualTo(401);
                assertThat(none.body()).isEqualTo("{\"error\":\"unauthorized\"}");
                assertThat(none.headers().get("content-type")).containsExactly("application/json");
                assertThat(call(edge, "GET", path, token + "x", null).status()).isEqualTo(401);
            }
            assertThat(call(edge, "PUT", "/v1/tenants/acme/rate-limit", "wrong", "{\"rate\":9,\"burst\":9}").status())
                    .isEqualTo(401);
            assertThat(call(edge, "DELETE", "/v1/tenants/acme/rate-limit", null, null).status()).isEqualTo(401);

            assertThat(call(edge, "GET", "/v1/rate-limits", token, null).body()).isEqualTo("{\"default\":null,\"tenants\":["
                    + "{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":2},\"source\":\"config\"},"
                    + "{\"tenant\":\"bulk\",\"limit\":{\"rate\":100000,\"burst\":100000},\"source\":\"config\"}]}");
            assertThat(call(edge, "GET", "/v1/tenants/nobody/rate-limit", token, null).body())
                    .isEqualTo("{\"tenant\":\"nobody\",\"limit\":null,\"source\":\"none\"}");
            Answer badTenant = call(edge, "GET", "/v1/tenants/.bad-tenant/rate-limit", token, null);
            assertThat(badTenant.status()).isEqualTo(400);
            assertThat(badTenant.body()).isEqualTo("{\"error\":\"invalid_tenant\"}");
            assertThat(call(edge, "PUT", "/v1/tenants/" + "x".repeat(65) + "/rate-limit", token, "{\"rate\":1,\"burst\":1}")
                    .body()).isEqualTo("{\"error\":\"invalid_tenant\"}");
            Answer invalid = call(edge, "PUT", "/v1/tenants/acme/rate-limit", token, "{\"rate\":1,\"burst\":0}");
            assertThat(invalid.status()).isEqualTo(400);
            assertThat(invalid.body()).isEqualTo("{\"error\":\"invalid_rate_limit\","
                    + "\"message\":\"burst must be an integer of at least 1, got 0\"}");
            Answer tooBigBody = call(edge, "PUT", "/v1/tenants/acme/rate-limit", token,
                    "{\"rate\":1,\"burst\":1,\"x\":\"" + "y".repeat(70_000) + "\"}");
            assertThat(tooBigBody.status()).isEqualTo(413);
            assertThat(tooBigBody.body()).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":65536}");
            Answer notFound = call(edge, "DELETE", "/v1/tenants/acme/rate-limit", token, null);
            assertThat(notFound.status()).isEqualTo(404);
            assertThat(notFound.body()).isEqualTo("{\"error\":\"rate_limit_not_found\"}");
            Answer noHook = call(edge, "GET", "/v1/hooks/0190aaaa-0000-7000-8000-000000000001", token, null);
            assertThat(noHook.status()).isEqualTo(404);
            assertThat(noHook.body()).isEqualTo("{\"error\":\"hook_not_found\"}");
            assertThat(call(edge, "GET", "/v1/nothing-here", token, null).status()).isEqualTo(404);
            Answer wrongMethod = call(edge, "POST", "/v1/rate-limits", token, "{}");
            assertThat(wrongMethod.status()).isEqualTo(405);
            assertThat(wrongMethod.headers().get("allow")).containsExactly("GET");

            assertThat(ingest(edge, "open")).isEqualTo(202);
            JsonNode admission = call(edge, "GET", "/v1/admission", token, null).json();
            assertThat(admission.get("scope").asText()).isEqualTo("node");
            assertThat(admission.get("shadow").asBoolean()).isFalse();
            assertThat(admission.get("tables").toString()).isEqualTo("[{\"name\":\"per_ip\",\"rows\":1,\"swept_total\":0},"
                    + "{\"name\":\"node\",\"rows\":2,\"swept_total\":0},{\"name\":\"tenant\",\"rows\":1,\"swept_total\":0}]");
            assertThat(admission.get("queue").get("max_hooks").asLong()).isEqualTo(10_000);
            assertThat(admission.get("arena").isNull()).isTrue();
            assertThat(admission.get("fleet").isNull()).isTrue();

            Answer metrics = call(edge, "GET", "/metrics", null, null);
            assertThat(metrics.status()).isEqualTo(200);
            assertThat(metrics.body()).contains("sluice_ingest_requests_total");
        }
    }

    @Test
    void aConfiguredTokenIsUsedAndMetricsCanRequireIt() {
        String yaml = "node: {id: test, data_dir: \"" + dir + "\"}\n"
                + "admin: {listen: \"127.0.0.1:0\", token: \"${ADMIN_TOKEN}\", metrics_require_token: true}\n" + CONFIG;
        var config = org.sluice.edge.config.ConfigLoader.parse(yaml, Map.of("ADMIN_TOKEN", "configured-t0ken"), "test");
        try (EdgeServer server = EdgeServer.builder(org.sluice.edge.netio.TestTransport.apply(config)).start()) {
            String url = "http://127.0.0.1:" + server.adminAddress().getPort();
            assertThat(Files.exists(dir.resolve("admin.token"))).isFalse();
            assertThat(call(url, "GET", "/v1/rate-limits", "configured-t0ken", null).status()).isEqualTo(200);
            Answer metrics = call(url, "GET", "/metrics", null, null);
            assertThat(metrics.status()).isEqualTo(401);
            assertThat(metrics.body()).isEqualTo("{\"error\":\"unauthorized\"}");
            assertThat(call(url, "GET", "/metrics", "nope", null).status()).isEqualTo(401);
            Answer allowed = call(url, "GET", "/metrics", "configured-t0ken", null);
            assertThat(allowed.status()).isEqualTo(200);
            assertThat(allowed.body()).contains("sluice_ingest_requests_total");
        }
    }

    // ------------------------------------------------------------------ override round trip

    @Test
    void overrideRoundTripAppliesAtOnceSurvivesARestartAndIsAudited() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String token = token();
            assertThat(acceptedUntilRefused(edge)).isEqualTo(2); // the config's burst; the bucket is now empty

            Answer put = call(edge, "PUT", "/v1/tenants/acme/rate-limit", token, "{\"rate\":1,\"burst\":5}",
                    "X-Sluice-Actor", "alice");
            assertThat(put.status()).isEqualTo(200);
            assertThat(put.body()).isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":5},\"source\":\"override\"}");
            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token, null).body()).isEqualTo(put.body());
            assertThat(call(edge, "GET", "/v1/rate-limits", token, null).body())
                    .contains("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":5},\"source\":\"override\"}");
            // Same manual-clock instant: the reset bucket admits the new burst at once.
            assertThat(acceptedUntilRefused(edge)).isEqualTo(5);
        }
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String token = token();
            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token, null).body())
                    .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":5},\"source\":\"override\"}");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(5);

            Answer delete = call(edge, "DELETE", "/v1/tenants/acme/rate-limit", token, null, "X-Sluice-Actor", "bob");
            assertThat(delete.status()).isEqualTo(204);
            assertThat(delete.body()).isEmpty();
            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token, null).body())
                    .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":2},\"source\":\"config\"}");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(2); // config again, buckets reset by the delete

            JsonNode audit = call(edge, "GET", "/v1/audit", token, null).json().get("audit");
            assertThat(audit).hasSize(2);
            assertThat(audit.get(0).get("actor").asText()).isEqualTo("bob");
            assertThat(audit.get(0).get("action").asText()).isEqualTo("delete");
            assertThat(audit.get(0).get("tenant").asText()).isEqualTo("acme");
            assertThat(audit.get(0).get("before").toString()).isEqualTo("{\"rate\":1,\"burst\":5}");
            assertThat(audit.get(0).get("after").isNull()).isTrue();
            assertThat(audit.get(1).get("actor").asText()).isEqualTo("alice");
            assertThat(audit.get(1).get("action").asText()).isEqualTo("put");
            assertThat(audit.get(1).get("before").isNull()).isTrue();
            assertThat(audit.get(1).get("after").toString()).isEqualTo("{\"rate\":1,\"burst\":5}");
            assertThat(audit.get(0).get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
            assertThat(call(edge, "GET", "/v1/audit?limit=1", token, null).json().get("audit")).hasSize(1);
        }
    }

    @Test
    void aPutTheStoreCannotWriteIs503AndTheOldLimitStillApplies() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String token = token();
            StoreFaults.failWrites(edge.backends().store(), true);
            Answer put = call(edge, "PUT", "/v1/tenants/acme/rate-limit", token, "{\"rate\":100,\"burst\":100}");
            assertThat(put.status()).isEqualTo(503);
            assertThat(put.body()).isEqualTo("{\"error\":\"store_unavailable\"}");
            StoreFaults.failWrites(edge.backends().store(), false);

            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token, null).body())
                    .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":2},\"source\":\"config\"}");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(2);
            assertThat(call(edge, "GET", "/v1/audit", token, null).body()).isEqualTo("{\"audit\":[]}");
        }
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) { // and nothing was persisted either
            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token(), null).json().get("source").asText())
                    .isEqualTo("config");
        }
    }

    @Test
    void aStoredOverrideThatNoLongerParsesIsSkippedAtBootAndTheOthersLoad() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            assertThat(call(edge, "PUT", "/v1/tenants/acme/rate-limit", token(),
                    "{\"rate\":1,\"burst\":7,\"max_body_bytes\":50000}").status()).isEqualTo(200);
            assertThat(call(edge, "PUT", "/v1/tenants/bulk/rate-limit", token(), "{\"rate\":3,\"burst\":3}").status())
                    .isEqualTo(200);
        }
        // http.max_body_bytes lowered below acme's override: that one no longer parses
        try (TestEdge edge = TestEdge.start(dir, CONFIG.replace("max_body_bytes: 100000", "max_body_bytes: 1000"))) {
            assertThat(call(edge, "GET", "/v1/tenants/acme/rate-limit", token(), null).json().get("source").asText())
                    .isEqualTo("config");
            assertThat(call(edge, "GET", "/v1/tenants/bulk/rate-limit", token(), null).body())
                    .isEqualTo("{\"tenant\":\"bulk\",\"limit\":{\"rate\":3,\"burst\":3},\"source\":\"override\"}");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(2);
        }
    }

    @Test
    void underHostScopeAnOverrideResetsTheArenaBucketsAndAdmissionShowsTheArena() throws Exception {
        Path arena = org.sluice.shm.SharedArena.defaultFile("sluice-admintest-" + java.util.UUID.randomUUID());
        String config = CONFIG.replace("rate_limits:\n", "rate_limits:\n  scope: host\n  host_arena: \"" + arena + "\"\n");
        try (TestEdge edge = TestEdge.start(dir, config)) {
            String token = token();
            assertThat(acceptedUntilRefused(edge)).isEqualTo(2);
            assertThat(call(edge, "PUT", "/v1/tenants/acme/rate-limit", token, "{\"rate\":1,\"burst\":4}").status())
                    .isEqualTo(200);
            assertThat(acceptedUntilRefused(edge)).isEqualTo(4); // the arena's buckets were reset too
            assertThat(call(edge, "DELETE", "/v1/tenants/acme/rate-limit", token, null).status()).isEqualTo(204);
            Http.Response first = edge.post("/hooks/open", Map.of(), "{}");
            assertThat(first.status()).isEqualTo(202);
            assertThat(first.header("RateLimit")).as("remaining read from the arena").isEqualTo("\"tenant\";r=1;t=1");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(1);

            JsonNode admission = call(edge, "GET", "/v1/admission", token, null).json();
            assertThat(admission.get("scope").asText()).isEqualTo("host");
            JsonNode stats = admission.get("arena");
            assertThat(stats.get("file").asText()).isEqualTo(arena.toString());
            JsonNode tenants = stats.get("tables").get("edge-tenant");
            assertThat(tenants.get("allowed").asLong()).isEqualTo(8);
            assertThat(tenants.get("denied").asLong()).isEqualTo(3);
            assertThat(stats.get("tables").has("edge-ip")).isTrue();
            assertThat(stats.get("tables").has("edge-node")).isTrue();
        } finally {
            Files.deleteIfExists(arena);
        }
    }

    @Test
    void underHostScopeTheBucketsSurviveARestart() throws Exception {
        Path arena = org.sluice.shm.SharedArena.defaultFile("sluice-admintest-" + java.util.UUID.randomUUID());
        String config = CONFIG.replace("rate_limits:\n", "rate_limits:\n  scope: host\n  host_arena: \"" + arena + "\"\n");
        try {
            try (TestEdge edge = TestEdge.start(dir, config)) {
                assertThat(acceptedUntilRefused(edge)).isEqualTo(2);
            }
            // A new process at the same clock instant: the debt is in the arena, not in the heap.
            try (TestEdge edge = TestEdge.start(dir, config)) {
                assertThat(ingest(edge, "open")).isEqualTo(429);
            }
            try (TestEdge edge = TestEdge.start(dir, CONFIG)) { // node scope: a fresh heap bucket
                assertThat(acceptedUntilRefused(edge)).isEqualTo(2);
            }
        } finally {
            Files.deleteIfExists(arena);
        }
    }

    // ------------------------------------------------------------------ reading hooks

    @Test
    void pagingWhileIngestRunsReturnsEveryHookExactlyOnceInCommitOrder() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String token = token();
            int writers = 4;
            int perWriter = 150;
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicBoolean writing = new AtomicBoolean(true);
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perWriter; i++) {
                        Http.Response r = edge.post("/hooks/many", Map.of("X-N", String.valueOf(i)), "{\"i\":" + i + "}");
                        assertThat(r.status()).isEqualTo(202);
                        acknowledged.add(JSON.readTree(r.body()).get("id").asText());
                    }
                    return null;
                }));
            }
            Thread done = new Thread(() -> {
                for (Future<?> f : futures) {
                    try {
                        f.get();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
                writing.set(false);
            });
            done.start();

            List<String> seen = new ArrayList<>();
            String after = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (writing.get() || seen.size() < writers * perWriter) {
                assertThat(System.nanoTime() - deadline).as("paging did not finish").isNegative();
                Answer page = call(edge, "GET", "/v1/hooks?limit=37" + (after == null ? "" : "&after=" + after), token, null);
                assertThat(page.status()).isEqualTo(200);
                for (JsonNode hook : page.json().get("hooks")) {
                    seen.add(hook.get("id").asText());
                    after = hook.get("id").asText();
                }
            }
            done.join();
            pool.shutdown();
            for (Future<?> f : futures) {
                f.get();
            }
            assertThat(seen).hasSize(writers * perWriter).doesNotHaveDuplicates();
            assertThat(new HashSet<>(seen)).isEqualTo(acknowledged);
            List<String> storeOrder = new ArrayList<>();
            StoredHooks.all(edge.backends().store()).forEach(h -> storeOrder.add(h.id()));
            assertThat(seen).isEqualTo(storeOrder);
            List<String> sorted = new ArrayList<>(seen);
            Collections.sort(sorted);
            assertThat(seen).isEqualTo(sorted); // UUIDv7 ids of one store rise with commit order

            JsonNode one = call(edge, "GET", "/v1/hooks/" + seen.get(0), token, null).json();
            assertThat(one.get("tenant").asText()).isEqualTo("bulk");
            assertThat(one.get("source").asText()).isEqualTo("many");
            assertThat(one.get("headers").get("X-N")).isNotNull();
            assertThat(new String(java.util.Base64.getDecoder().decode(one.get("body_base64").asText()),
                    StandardCharsets.UTF_8)).startsWith("{\"i\":");
            assertThat(one.get("received_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
            JsonNode last = call(edge, "GET", "/v1/hooks?after=" + seen.get(seen.size() - 1), token, null).json();
            assertThat(last.get("hooks")).isEmpty();
            assertThat(last.get("next").isNull()).isTrue();
            JsonNode firstPage = call(edge, "GET", "/v1/hooks?limit=10", token, null).json();
            assertThat(firstPage.get("next").asText()).isEqualTo(seen.get(9));
        }
    }

    // ------------------------------------------------------------------ the CLI against the real server

    @Test
    void theCliSetsLimitsAndTailsHooksOnTheRealServer() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String[] where = {"--admin", adminUrl(edge), "--data-dir", dir.toString()};
            StringWriter out = new StringWriter();
            CommandLine set = new CommandLine(new LimitsCommand().environment(Map.of()));
            set.setOut(new PrintWriter(out, true));
            String[] args = concat(new String[] {"set", "acme", "--rate", "2", "--burst", "3", "--actor", "cli-user"}, where);
            assertThat(set.execute(args)).isEqualTo(0);
            assertThat(out.toString()).isEqualTo("override set. acme: rate=2 burst=3 (override)\n");
            assertThat(acceptedUntilRefused(edge)).isEqualTo(3);

            StringWriter tailed = new StringWriter();
            CommandLine tail = new CommandLine(new TailCommand().environment(Map.of()));
            tail.setOut(new PrintWriter(tailed, true));
            assertThat(tail.execute(where)).isEqualTo(0);
            String[] lines = tailed.toString().split("\n");
            assertThat(lines).hasSize(3);
            for (String line : lines) {
                assertThat(JSON.readTree(line).get("tenant").asText()).isEqualTo("acme");
            }
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Limit;
import org.sluice.core.TenantLimits;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.ManualClock;

/**
 * {@code GET /v1/hooks} over a real RocksDB store on a temporary directory and real HTTP:
 * the listing the console's Hooks page reads (issue 46, point 9) is newest first, bounded by
 * {@code limit}, and carries no body; the body is read by id.
 */
class HookListingTest {

    private static final String TOKEN = "hook-listing-test-token-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    private final AtomicLong wall = new AtomicLong(1_796_286_158_000L);
    private RocksHookStore store;
    private JdkAdminServer server;

    @BeforeEach
    void start() throws Exception {
        store = RocksHookStore.open(dir.resolve("store"), RocksHookStore.Options.defaults().withWallClock(wall::get));
        InMemoryAuditedStore audit = new InMemoryAuditedStore(wall::get);
        TenantLimits limits = new TenantLimits(null, Map.of("acme", Limit.of(5, 2)), audit, new ManualClock());
        AdminApi api = AdminApi.builder().token(AdminToken.of(TOKEN)).limits(limits).audit(audit)
                .hooks(StoreAdapters.hooks(store))
                .admission(() -> new AdmissionState("node", false, List.of(), new AdmissionState.Queue(0, 0, 1, 1), null, null))
                .instanceMaxBodyBytes(1_000_000).build();
        server = new JdkAdminServer(api);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        store.close();
    }

    /** Commits {@code n} hooks, one a millisecond, each with a body of {@code bodyBytes}; their ids in commit order. */
    private List<String> commit(int n, int bodyBytes, Map<String, String> headers) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] body = new byte[bodyBytes];
            java.util.Arrays.fill(body, (byte) ('a' + i % 26));
            ids.add(store.commit(List.of(new PendingHook("acme", "gh", null, wall.getAndIncrement(), headers, body)))
                    .get(0).id());
        }
        return ids;
    }

    private static JsonNode get(JdkAdminServer server, String target, int status) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + target))
                .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("hooks").forEach(h -> out.add(h.get("id").asText()));
        return out;
    }

    /**
     * Before the fix the console read up to 20 pages of 1,000 hooks in commit order, bodies
     * and all, to show the newest 100: here one page of 100 newest first, without a body.
     */
    @Test
    void theNewestFirstListingIsBoundedAndCarriesNoBody() throws Exception {
        List<String> ids = commit(250, 4_096, Map.of("Content-Type", "application/json"));
        JsonNode first = get(server, "/v1/hooks?order=newest&limit=100", 200);
        List<String> newest = new ArrayList<>(ids.subList(150, 250));
        java.util.Collections.reverse(newest);
        assertThat(ids(first)).isEqualTo(newest);
        JsonNode row = first.get("hooks").get(0);
        assertThat(row.has("body_base64")).isFalse();
        assertThat(row.get("body_bytes").asInt()).isEqualTo(4_096);
        assertThat(row.get("tenant").asText()).isEqualTo("acme");
        assertThat(row.get("source").asText()).isEqualTo("gh");
        assertThat(row.get("received_at").asText()).isEqualTo("2026-12-03T08:22:38.249Z");
        assertThat(row.get("headers").get("Content-Type").asText()).isEqualTo("application/json");
        assertThat(first.get("next").asText()).isEqualTo(ids.get(150));
        assertThat(first.toString().length()).as("a page of 100 rows without bodies").isLessThan(100 * 400);

        // paging with next walks back to the oldest, every hook once
        List<String> all = new ArrayList<>(ids(first));
        JsonNode page = first;
        while (!page.get("next").isNull()) {
            page = get(server, "/v1/hooks?order=newest&limit=100&after=" + page.get("next").asText(), 200);
            all.addAll(ids(page));
        }
        List<String> reversed = new ArrayList<>(ids);
        java.util.Collections.reverse(reversed);
        assertThat(all).isEqualTo(reversed);

        // the body of an opened row, by id
        JsonNode one = get(server, "/v1/hooks/" + ids.get(249), 200);
        assertThat(java.util.Base64.getDecoder().decode(one.get("body_base64").asText())).hasSize(4_096);
    }

    @Test
    void commitOrderStaysTheDefaultAndABadOrderOrAfterIsRefused() throws Exception {
        List<String> ids = commit(3, 10, Map.of());
        JsonNode oldest = get(server, "/v1/hooks?limit=10", 200);
        assertThat(ids(oldest)).isEqualTo(ids);
        assertThat(oldest.get("hooks").get(0).has("body_base64")).isTrue();
        assertThat(ids(get(server, "/v1/hooks?order=oldest&limit=2", 200))).isEqualTo(ids.subList(0, 2));
        assertThat(ids(get(server, "/v1/hooks?order=newest&limit=10&after=" + ids.get(1), 200))).containsExactly(ids.get(0));
        assertThat(get(server, "/v1/hooks?order=newest&after=" + ids.get(0), 200).get("next").isNull()).isTrue();

        JsonNode bad = get(server, "/v1/hooks?order=sideways", 400);
        assertThat(bad.get("error").asText()).isEqualTo("invalid_query");
        assertThat(bad.get("message").asText()).isEqualTo("order must be oldest or newest, got \"sideways\"");
        assertThat(get(server, "/v1/hooks?order=newest&after=0192f0c4-0000-7000-8000-000000000000", 400)
                .get("error").asText()).isEqualTo("invalid_after");
        assertThat(get(server, "/v1/hooks?order=newest&limit=0", 400).get("error").asText()).isEqualTo("invalid_limit");
    }

    @Test
    void anEmptyStoreListsNothing() throws Exception {
        JsonNode empty = get(server, "/v1/hooks?order=newest", 200);
        assertThat(empty.get("hooks")).isEmpty();
        assertThat(empty.get("next").isNull()).isTrue();
    }
}

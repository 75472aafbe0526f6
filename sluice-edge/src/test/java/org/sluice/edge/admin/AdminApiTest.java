package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.InvalidLimitException;
import org.sluice.core.Limit;
import org.sluice.core.TenantDecision;
import org.sluice.core.TenantLimits;
import org.sluice.testkit.ManualClock;

/** The admin API's routes, statuses and JSON, against real {@link TenantLimits} and an audited store. */
class AdminApiTest {

    private static final String TOKEN = "t0ken-for-tests-only";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ManualClock clock = new ManualClock();
    private final AtomicLong wallMillis = new AtomicLong(1_764_672_000_000L);
    private InMemoryAuditedStore store;
    private TenantLimits limits;
    private ListHookReader hooks;
    private AdminApi api;

    @BeforeEach
    void setUp() {
        store = new InMemoryAuditedStore(wallMillis::get);
        limits = new TenantLimits(Limit.of(50, 100), Map.of("acme", Limit.of(5, 2), "beta", Limit.of(1, 1)), store, clock);
        hooks = new ListHookReader();
        api = apiOver(limits);
    }

    private AdminApi apiOver(TenantLimits over) {
        return AdminApi.builder().token(AdminToken.of(TOKEN)).limits(over).audit(store).hooks(hooks)
                .admission(() -> new AdmissionState("node", false,
                        List.of(new AdmissionState.Table("tenant", over.buckets(), 7)),
                        new AdmissionState.Queue(3, 300, 10_000, 1 << 20), null, null))
                .instanceMaxBodyBytes(1_000_000).build();
    }

    // ------------------------------------------------------------------ helpers

    private AdminResponse call(String method, String target) {
        return call(method, target, null, Map.of());
    }

    private AdminResponse call(String method, String target, String body) {
        return call(method, target, body, Map.of());
    }

    private AdminResponse call(String method, String target, String body, Map<String, String> extra) {
        Map<String, String> headers = new HashMap<>(extra);
        headers.putIfAbsent("Authorization", "Bearer " + TOKEN);
        return api.handle(AdminRequest.of(method, target, headers,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8)));
    }

    private static JsonNode json(AdminResponse response) {
        assertThat(response.headers()).containsEntry("Content-Type", "application/json");
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.bodyText(), e);
        }
    }

    private static void assertError(AdminResponse response, int status, String error) {
        assertThat(response.status()).as(response.bodyText()).isEqualTo(status);
        assertThat(json(response).get("error").asText()).isEqualTo(error);
    }

    private int admittedBackToBack(String tenant) {
        int admitted = 0;
        for (int i = 0; i < 10_000 && limits.hit(tenant, 0).admitted(); i++) {
            admitted++;
        }
        return admitted;
    }

    // ------------------------------------------------------------------ auth

    @Test
    void everyV1RouteNeedsTheBearerToken() {
        for (String[] route : new String[][] {{"GET", "/v1/rate-limits"}, {"GET", "/v1/tenants/acme/rate-limit"},
                {"PUT", "/v1/tenants/acme/rate-limit"}, {"DELETE", "/v1/tenants/acme/rate-limit"},
                {"GET", "/v1/audit"}, {"GET", "/v1/hooks"}, {"GET", "/v1/hooks/x"}, {"GET", "/v1/admission"},
                {"GET", "/v1/no-such-route"}}) {
            AdminResponse missing = api.handle(AdminRequest.of(route[0], route[1], Map.of(), null));
            assertThat(missing.status()).isEqualTo(401);
            assertThat(missing.bodyText()).isEqualTo("{\"error\":\"unauthorized\"}");
            assertThat(missing.headers()).containsEntry("WWW-Authenticate", "Bearer realm=\"sluice-admin\"");
            assertError(call(route[0], route[1], "{}", Map.of("Authorization", "Bearer wrong")), 401, "unauthorized");
            assertError(call(route[0], route[1], "{}", Map.of("Authorization", "Bearer " + TOKEN + "x")), 401, "unauthorized");
            assertError(call(route[0], route[1], "{}", Map.of("Authorization", "Basic " + TOKEN)), 401, "unauthorized");
            assertError(call(route[0], route[1], "{}", Map.of("Authorization", TOKEN)), 401, "unauthorized");
            assertError(call(route[0], route[1], "{}", Map.of("Authorization", "Bearer ")), 401, "unauthorized");
        }
        assertThat(store.load()).isEmpty();
        assertThat(store.newest(10)).isEmpty();
    }

    @Test
    void schemeNameIsCaseInsensitiveAndHeaderNameToo() {
        AdminResponse r = api.handle(AdminRequest.of("GET", "/v1/rate-limits",
                Map.of("authorization", "bearer " + TOKEN), null));
        assertThat(r.status()).isEqualTo(200);
    }

    @Test
    void pathsOutsideV1AreNotFoundAndNotOwned() {
        assertError(call("GET", "/metrics"), 404, "not_found");
        assertError(call("GET", "/v1x"), 404, "not_found");
        assertThat(AdminApi.owns("/v1/rate-limits")).isTrue();
        assertThat(AdminApi.owns("/metrics")).isFalse();
        assertThat(AdminApi.owns("/v10/x")).isFalse();
    }

    @Test
    void authorizedIsWhatTheListenerUsesForMetrics() {
        assertThat(api.authorized(AdminRequest.of("GET", "/metrics", Map.of("Authorization", "Bearer " + TOKEN), null))).isTrue();
        assertThat(api.authorized(AdminRequest.of("GET", "/metrics", Map.of(), null))).isFalse();
        assertThat(api.authorized(AdminRequest.of("GET", "/metrics", Map.of("Authorization", "Bearer nope"), null))).isFalse();
    }

    // ------------------------------------------------------------------ routing and shared checks

    @Test
    void unknownV1RoutesAreNotFoundAndWrongMethodsAre405WithAllow() {
        assertError(call("GET", "/v1/tenants/acme"), 404, "not_found");
        assertError(call("GET", "/v1/tenants/acme/rate-limits"), 404, "not_found");
        assertError(call("GET", "/v1"), 404, "not_found");
        AdminResponse post = call("POST", "/v1/tenants/acme/rate-limit", "{}");
        assertError(post, 405, "method_not_allowed");
        assertThat(post.headers()).containsEntry("Allow", "GET, PUT, DELETE");
        AdminResponse put = call("PUT", "/v1/rate-limits", "{}");
        assertError(put, 405, "method_not_allowed");
        assertThat(put.headers()).containsEntry("Allow", "GET");
        assertError(call("DELETE", "/v1/hooks"), 405, "method_not_allowed");
        assertError(call("POST", "/v1/audit"), 405, "method_not_allowed");
        assertError(call("POST", "/v1/admission"), 405, "method_not_allowed");
    }

    @Test
    void tenantIdsOutsideTheAlphabetOrLengthAreInvalidOnEveryMethod() {
        String sixtyFour = "a".repeat(64);
        for (String bad : new String[] {"", "a".repeat(65), ".acme", "ac%20me", "ac me", "a/b", "acm\u00e9", "..", "a:b"}) {
            for (String method : new String[] {"GET", "PUT", "DELETE"}) {
                AdminResponse r = call(method, "/v1/tenants/" + bad + "/rate-limit", "{\"rate\":1,\"burst\":1}");
                assertThat(r.status()).as(method + " " + bad).isEqualTo(400);
                assertThat(r.bodyText()).isEqualTo("{\"error\":\"invalid_tenant\"}");
            }
        }
        assertThat(call("GET", "/v1/tenants/" + sixtyFour + "/rate-limit").status()).isEqualTo(200);
        assertThat(call("GET", "/v1/tenants/A-z_09/rate-limit").status()).isEqualTo(200);
        assertThat(call("GET", "/v1/tenants/ac.me/rate-limit").status()).as("the one TenantId rule allows dots").isEqualTo(200);
        assertThat(store.load()).isEmpty();
    }

    @Test
    void bodiesOver64KiBAre413() {
        String body = "{\"rate\":1,\"burst\":1,\"pad\":\"" + "x".repeat(64 * 1024) + "\"}";
        AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", body);
        assertThat(r.status()).isEqualTo(413);
        assertThat(json(r).get("error").asText()).isEqualTo("payload_too_large");
        assertThat(json(r).get("limit").asLong()).isEqualTo(65536);
        byte[] exactly = new byte[AdminApi.MAX_BODY_BYTES];
        assertThat(api.handle(AdminRequest.of("PUT", "/v1/tenants/acme/rate-limit",
                Map.of("Authorization", "Bearer " + TOKEN), exactly)).status()).isEqualTo(400);
        assertThat(store.load()).isEmpty();
    }

    // ------------------------------------------------------------------ reading limits

    @Test
    void listIsDefaultAndConfigTenantsUnionOverridesSortedByTenant() {
        assertThat(call("PUT", "/v1/tenants/aardvark/rate-limit", "{\"rate\":2,\"burst\":3}").status()).isEqualTo(200);
        assertThat(call("PUT", "/v1/tenants/beta/rate-limit", "{\"rate\":9,\"burst\":9,\"max_queue\":4}").status()).isEqualTo(200);
        AdminResponse r = call("GET", "/v1/rate-limits");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("{\"default\":{\"rate\":50,\"burst\":100},\"tenants\":["
                + "{\"tenant\":\"aardvark\",\"limit\":{\"rate\":2,\"burst\":3},\"source\":\"override\"},"
                + "{\"tenant\":\"acme\",\"limit\":{\"rate\":5,\"burst\":2},\"source\":\"config\"},"
                + "{\"tenant\":\"beta\",\"limit\":{\"rate\":9,\"burst\":9,\"max_queue\":4},\"source\":\"override\"}]}");
    }

    @Test
    void listWithoutDefaultSaysNull() {
        TenantLimits bare = new TenantLimits(null, Map.of(), store, clock);
        AdminResponse r = apiOver(bare).handle(AdminRequest.of("GET", "/v1/rate-limits",
                Map.of("Authorization", "Bearer " + TOKEN), null));
        assertThat(r.bodyText()).isEqualTo("{\"default\":null,\"tenants\":[]}");
        AdminResponse one = apiOver(bare).handle(AdminRequest.of("GET", "/v1/tenants/who/rate-limit",
                Map.of("Authorization", "Bearer " + TOKEN), null));
        assertThat(one.bodyText()).isEqualTo("{\"tenant\":\"who\",\"limit\":null,\"source\":\"none\"}");
    }

    @Test
    void getNamesTheSourceOfEachTenantsLimit() {
        assertThat(call("GET", "/v1/tenants/acme/rate-limit").bodyText())
                .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":5,\"burst\":2},\"source\":\"config\"}");
        assertThat(call("GET", "/v1/tenants/other/rate-limit").bodyText())
                .isEqualTo("{\"tenant\":\"other\",\"limit\":{\"rate\":50,\"burst\":100},\"source\":\"default\"}");
        call("PUT", "/v1/tenants/other/rate-limit", "{\"rate\":0.5,\"burst\":1}");
        assertThat(call("GET", "/v1/tenants/other/rate-limit").bodyText())
                .isEqualTo("{\"tenant\":\"other\",\"limit\":{\"rate\":0.5,\"burst\":1},\"source\":\"override\"}");
    }

    // ------------------------------------------------------------------ put

    @Test
    void putReplacesTheLimitWholeAppliesAtOnceAndResetsTheBuckets() {
        assertThat(admittedBackToBack("acme")).isEqualTo(2); // config burst; now in debt
        String body = "{\"rate\":10,\"burst\":7,\"bytes_per_second\":1000,\"burst_bytes\":4000,"
                + "\"max_body_bytes\":2048,\"max_queue\":3,\"max_queue_bytes\":9999}";
        AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", body);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("{\"tenant\":\"acme\",\"limit\":" + body + ",\"source\":\"override\"}");
        assertThat(store.load()).containsEntry("acme", Limit.parse(JsonMap.of(body), 1_000_000));
        // Same clock instant: the old debt is gone and the new burst is available at once.
        assertThat(admittedBackToBack("acme")).isEqualTo(7);

        // Replaced whole: an override without the optional keys keeps none of the old ones.
        assertThat(call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1,\"burst\":3}").bodyText())
                .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":1,\"burst\":3},\"source\":\"override\"}");
        assertThat(limits.bodyLimit("acme")).isEmpty();
        assertThat(admittedBackToBack("acme")).isEqualTo(3);
    }

    @Test
    void invalidLimitsAre400WithLimitParsesOwnMessageAndChangeNothing() {
        for (String body : new String[] {"{\"rate\":0,\"burst\":1}", "{\"rate\":1}", "{\"burst\":1}",
                "{\"rate\":1,\"burst\":1.5}", "{\"rate\":\"5\",\"burst\":1}", "{\"rate\":1,\"burst\":1,\"bogus\":1}",
                "{\"rate\":1,\"burst\":1,\"burst_bytes\":5}", "{\"rate\":1,\"burst\":1,\"max_body_bytes\":1000001}",
                "{\"rate\":1,\"burst\":null}", "{\"rate\":1,\"burst\":1,\"max_queue\":0}"}) {
            String expected;
            try {
                Limit.parse(JsonMap.of(body), 1_000_000);
                throw new AssertionError("parses: " + body);
            } catch (InvalidLimitException e) {
                expected = e.getMessage();
            }
            AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", body);
            assertThat(r.status()).as(body).isEqualTo(400);
            JsonNode j = json(r);
            assertThat(j.get("error").asText()).isEqualTo("invalid_rate_limit");
            assertThat(j.get("message").asText()).isEqualTo(expected);
        }
        assertThat(json(call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1,\"burst\":1,\"max_body_bytes\":1000001}"))
                .get("message").asText()).isEqualTo("max_body_bytes must be at most 1000000, got 1000001");
        for (String notAnObject : new String[] {"", "[1]", "5", "nope", "{\"rate\":1,\"burst\":1} {}",
                "{\"rate\":1,\"rate\":2,\"burst\":1}"}) {
            AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", notAnObject);
            assertThat(r.status()).as(notAnObject).isEqualTo(400);
            assertThat(json(r).get("error").asText()).isEqualTo("invalid_rate_limit");
            assertThat(json(r).get("message").asText()).startsWith("the body must be one JSON object");
        }
        assertThat(store.load()).isEmpty();
        assertThat(store.newest(100)).isEmpty();
        assertThat(limits.effective("acme").limit()).isEqualTo(Limit.of(5, 2));
    }

    @Test
    void integralFloatsCountAsIntegers() {
        AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":2.5,\"burst\":4.0}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(limits.effective("acme").limit()).isEqualTo(Limit.of(2.5, 4));
    }

    @Test
    void aFailingStoreAnswers503AndTheOldLimitStillApplies() {
        store.failWrites(true);
        AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1000,\"burst\":1000}");
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.bodyText()).isEqualTo("{\"error\":\"store_unavailable\"}");
        assertThat(limits.effective("acme").limit()).isEqualTo(Limit.of(5, 2));
        assertThat(admittedBackToBack("acme")).isEqualTo(2);
        assertThat(call("GET", "/v1/tenants/acme/rate-limit").bodyText()).contains("\"source\":\"config\"");
        assertThat(store.newest(10)).isEmpty();

        store.failWrites(false);
        assertThat(call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1000,\"burst\":1000}").status()).isEqualTo(200);
        store.failWrites(true);
        assertError(call("DELETE", "/v1/tenants/acme/rate-limit"), 503, "store_unavailable");
        assertThat(limits.effective("acme").limit()).isEqualTo(Limit.of(1000, 1000));
        assertThat(store.newest(10)).hasSize(1);
    }

    // ------------------------------------------------------------------ delete

    @Test
    void deleteIs204ThenTheConfigLimitAppliesAgainAndASecondDeleteIs404() {
        call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":100,\"burst\":50}");
        assertThat(admittedBackToBack("acme")).isEqualTo(50);
        AdminResponse r = call("DELETE", "/v1/tenants/acme/rate-limit");
        assertThat(r.status()).isEqualTo(204);
        assertThat(r.body()).isEmpty();
        assertThat(call("GET", "/v1/tenants/acme/rate-limit").bodyText())
                .isEqualTo("{\"tenant\":\"acme\",\"limit\":{\"rate\":5,\"burst\":2},\"source\":\"config\"}");
        assertThat(admittedBackToBack("acme")).isEqualTo(2); // buckets reset: the config's burst, not the debt
        AdminResponse again = call("DELETE", "/v1/tenants/acme/rate-limit");
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.bodyText()).isEqualTo("{\"error\":\"rate_limit_not_found\"}");
        assertError(call("DELETE", "/v1/tenants/never/rate-limit"), 404, "rate_limit_not_found");
    }

    // ------------------------------------------------------------------ audit

    @Test
    void auditRecordsEachChangeWithActorNewestFirst() {
        call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":10,\"burst\":10}", Map.of("X-Sluice-Actor", "alice@ops"));
        wallMillis.addAndGet(1500);
        call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":20,\"burst\":20}");
        wallMillis.addAndGet(1);
        call("DELETE", "/v1/tenants/acme/rate-limit", null, Map.of("x-sluice-actor", "bob"));
        call("DELETE", "/v1/tenants/acme/rate-limit", null, Map.of("X-Sluice-Actor", "carol")); // 404: no record

        AdminResponse r = call("GET", "/v1/audit");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("{\"audit\":["
                + "{\"time\":\"2025-12-02T10:40:01.501Z\",\"actor\":\"bob\",\"action\":\"delete\",\"tenant\":\"acme\","
                + "\"before\":{\"rate\":20,\"burst\":20},\"after\":null},"
                + "{\"time\":\"2025-12-02T10:40:01.500Z\",\"actor\":\"admin\",\"action\":\"put\",\"tenant\":\"acme\","
                + "\"before\":{\"rate\":10,\"burst\":10},\"after\":{\"rate\":20,\"burst\":20}},"
                + "{\"time\":\"2025-12-02T10:40:00.000Z\",\"actor\":\"alice@ops\",\"action\":\"put\",\"tenant\":\"acme\","
                + "\"before\":null,\"after\":{\"rate\":10,\"burst\":10}}]}");
        assertThat(json(call("GET", "/v1/audit?limit=1")).get("audit")).hasSize(1);
        assertThat(json(call("GET", "/v1/audit?limit=1")).get("audit").get(0).get("actor").asText()).isEqualTo("bob");
    }

    @Test
    void auditLimitDefaultsTo100AndIsCappedAt1000() {
        for (int i = 0; i < 1005; i++) {
            assertThat(call("PUT", "/v1/tenants/t" + (i % 7) + "/rate-limit", "{\"rate\":" + (i + 1) + ",\"burst\":1}").status())
                    .isEqualTo(200);
        }
        assertThat(json(call("GET", "/v1/audit")).get("audit")).hasSize(100);
        JsonNode capped = json(call("GET", "/v1/audit?limit=5000")).get("audit");
        assertThat(capped).hasSize(1000);
        assertThat(capped.get(0).get("after").get("rate").asLong()).isEqualTo(1005);
        assertThat(capped.get(999).get("after").get("rate").asLong()).isEqualTo(6);
        assertThat(json(call("GET", "/v1/audit?limit=99999999999999999999")).get("audit")).hasSize(1000);
        assertThat(json(call("GET", "/v1/audit?limit=007")).get("audit")).hasSize(7);
        for (String bad : new String[] {"0", "-1", "abc", "", "1.5", "000"}) {
            AdminResponse r = call("GET", "/v1/audit?limit=" + bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(json(r).get("error").asText()).isEqualTo("invalid_limit");
        }
        assertError(call("GET", "/v1/audit?limit=%zz"), 400, "invalid_query");
    }

    @Test
    void anUnprintableOrHugeActorIsRefusedAndChangesNothing() {
        for (String actor : new String[] {"a".repeat(129), "tab\there", "caf\u00e9"}) {
            AdminResponse r = call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1,\"burst\":1}", Map.of("X-Sluice-Actor", actor));
            assertError(r, 400, "invalid_actor");
        }
        assertThat(store.load()).isEmpty();
        call("PUT", "/v1/tenants/acme/rate-limit", "{\"rate\":1,\"burst\":1}", Map.of("X-Sluice-Actor", "   "));
        assertThat(store.newest(1).get(0).actor()).isEqualTo("admin");
    }

    // ------------------------------------------------------------------ hooks

    private static HookReader.Hook hook(int i) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("X-Event-Id", "ev-" + i);
        return new HookReader.Hook(String.format("0190aaaa-0000-7000-8000-%012d", i), "acme", "open",
                1_764_672_000_123L + i, headers, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void hooksPageInCommitOrderEachExactlyOnce() {
        for (int i = 0; i < 257; i++) {
            hooks.add(hook(i));
        }
        List<String> seen = new java.util.ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            JsonNode page = json(call("GET", "/v1/hooks?limit=50" + (after == null ? "" : "&after=" + after)));
            page.get("hooks").forEach(h -> seen.add(h.get("id").asText()));
            after = page.get("next").isNull() ? null : page.get("next").asText();
            pages++;
        } while (after != null);
        assertThat(pages).isEqualTo(6);
        assertThat(seen).hasSize(257).doesNotHaveDuplicates();
        for (int i = 0; i < 257; i++) {
            assertThat(seen.get(i)).isEqualTo(hook(i).id());
        }
        assertThat(json(call("GET", "/v1/hooks")).get("hooks")).hasSize(100);
        assertThat(json(call("GET", "/v1/hooks?limit=100000")).get("hooks")).hasSize(257);
        assertError(call("GET", "/v1/hooks?limit=0"), 400, "invalid_limit");
        assertError(call("GET", "/v1/hooks?after=nope"), 400, "invalid_after");
    }

    @Test
    void aHookIsRenderedWithEveryFieldAndAnUnknownIdIs404() {
        hooks.add(hook(1));
        AdminResponse r = call("GET", "/v1/hooks/" + hook(1).id());
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("{\"id\":\"0190aaaa-0000-7000-8000-000000000001\",\"tenant\":\"acme\","
                + "\"source\":\"open\",\"received_at\":\"2025-12-02T10:40:00.124Z\","
                + "\"headers\":{\"Content-Type\":\"application/json\",\"X-Event-Id\":\"ev-1\"},"
                + "\"body_base64\":\"" + Base64.getEncoder().encodeToString("{\"n\":1}".getBytes(StandardCharsets.UTF_8)) + "\",\"deliveries\":[]}");
        AdminResponse missing = call("GET", "/v1/hooks/0190aaaa-0000-7000-8000-000000000002");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.bodyText()).isEqualTo("{\"error\":\"hook_not_found\"}");
        JsonNode empty = json(call("GET", "/v1/hooks?after=" + hook(1).id()));
        assertThat(empty.get("hooks")).isEmpty();
        assertThat(empty.get("next").isNull()).isTrue();
    }

    @Test
    void anUnreadableHookStoreIs503() {
        hooks.failing = true;
        assertError(call("GET", "/v1/hooks"), 503, "store_unavailable");
        assertError(call("GET", "/v1/hooks/abc"), 503, "store_unavailable");
    }

    // ------------------------------------------------------------------ admission

    @Test
    void admissionRendersTheSnapshot() {
        limits.hit("acme", 0);
        AdminResponse r = call("GET", "/v1/admission");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("{\"scope\":\"node\",\"shadow\":false,"
                + "\"tables\":[{\"name\":\"tenant\",\"rows\":1,\"swept_total\":7}],"
                + "\"queue\":{\"hooks\":3,\"bytes\":300,\"max_hooks\":10000,\"max_bytes\":1048576},"
                + "\"arena\":null,\"fleet\":null}");
    }

    @Test
    void builderRefusesMissingParts() {
        assertThatThrownBy(() -> AdminApi.builder().build()).isInstanceOf(NullPointerException.class).hasMessage("token");
        assertThatThrownBy(() -> AdminApi.builder().instanceMaxBodyBytes(0))
                .hasMessage("instanceMaxBodyBytes must be at least 1, got 0");
    }

    /** JSON text to the map Limit.parse reads, decoded the way the API decodes it. */
    static final class JsonMap {
        @SuppressWarnings("unchecked")
        static Map<String, Object> of(String json) {
            return AdminJson.readObject(json.getBytes(StandardCharsets.UTF_8));
        }
    }

    // ------------------------------------------------------------------ delivery, without a store

    @Test
    void withoutAStoreTheDeliveryRoutesAnswerAsANodeWithNoDestinations() {
        for (String[] route : new String[][] {{"GET", "/v1/destinations"}, {"POST", "/v1/destinations/app/pause"},
                {"GET", "/v1/dead-letters"}, {"POST", "/v1/hooks/x/redeliver"}, {"GET", "/v1/replays/x"}}) {
            assertError(api.handle(AdminRequest.of(route[0], route[1], Map.of(), null)), 401, "unauthorized");
        }
        assertThat(call("GET", "/v1/destinations").bodyText()).isEqualTo("{\"destinations\":[]}");
        assertThat(call("GET", "/v1/dead-letters").bodyText()).isEqualTo("{\"dead_letters\":[],\"next\":null}");
        assertError(call("GET", "/v1/dead-letters?limit=0"), 400, "invalid_limit");
        assertError(call("GET", "/v1/dead-letters?destination=app"), 404, "destination_not_found");
        assertError(call("POST", "/v1/destinations/app/pause"), 404, "destination_not_found");
        assertError(call("POST", "/v1/destinations/app/replay", "{}"), 404, "destination_not_found");
        assertError(call("POST", "/v1/destinations/app"), 404, "not_found");
        assertError(call("POST", "/v1/hooks/x/redeliver"), 404, "hook_not_found");
        assertError(call("POST", "/v1/hooks/x/redeliver", "{\"destinations\":\"app\"}"), 400, "invalid_redeliver");
        assertError(call("GET", "/v1/replays/x"), 404, "replay_not_found");
        assertError(call("DELETE", "/v1/destinations"), 405, "method_not_allowed");
        assertThat(call("PUT", "/v1/hooks/x/redeliver").headers()).containsEntry("Allow", "POST");
        assertThat(store.newest(10)).isEmpty();
    }
}

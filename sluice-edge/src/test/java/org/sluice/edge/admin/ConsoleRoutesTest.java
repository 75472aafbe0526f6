package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;
import org.sluice.core.TenantLimits;
import org.sluice.edge.config.SourceConfig;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.stats.StatsRing;
import org.sluice.edge.verify.VerifySpec;
import org.sluice.testkit.ManualClock;

/** {@code GET /v1/stats/timeseries}, {@code GET /v1/sources} and {@code GET /v1/status}. */
class ConsoleRoutesTest {

    private static final String TOKEN = "t0ken-for-tests-only";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long T0 = 1_764_672_000_000L;

    private final AtomicLong wallMillis = new AtomicLong(T0);
    private final StatsRing ring = new StatsRing(wallMillis::get);
    private final AtomicReference<String> notReady = new AtomicReference<>();
    private AdminApi api;

    @BeforeEach
    void setUp() {
        InMemoryAuditedStore store = new InMemoryAuditedStore(wallMillis::get);
        TenantLimits limits = new TenantLimits(Limit.of(50, 100), Map.of(), store, new ManualClock());
        SourceConfig github = new SourceConfig("gh", Optional.of("acme"),
                new VerifySpec("github", List.of("super-secret-1", "super-secret-2"), 300, null, null, null, null),
                new DedupeSpec(DedupeSpec.Kind.GITHUB, null), 1_000_000);
        SourceConfig shared = new SourceConfig("open", Optional.empty(),
                new VerifySpec("none", List.of(), 300, null, null, null, null), DedupeSpec.NONE, 5_000);
        api = AdminApi.builder().token(AdminToken.of(TOKEN)).limits(limits).audit(store).hooks(new ListHookReader())
                .admission(() -> new AdmissionState("node", false, List.of(),
                        new AdmissionState.Queue(0, 0, 1, 1), null, null))
                .stats(ring).sources(List.of(github, shared)).status(notReady::get, () -> 4096L)
                .build();
    }

    private AdminResponse get(String target) {
        return api.handle(AdminRequest.of("GET", target, Map.of("Authorization", "Bearer " + TOKEN), null));
    }

    private static JsonNode json(AdminResponse response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.bodyText(), e);
        }
    }

    @Test
    void timeseriesAnswersTheLastWholeSecondsOfEverySeries() {
        ring.add(StatsRing.Series.ACCEPTED);                 // second 0
        ring.add(StatsRing.Series.ACCEPTED);
        wallMillis.addAndGet(1000);
        ring.add(StatsRing.Series.REFUSED_TENANT);           // second 1
        ring.add(StatsRing.Series.VERIFICATION_FAILED);
        wallMillis.addAndGet(1500);                          // now second 2.5: seconds 0 and 1 are whole

        AdminResponse response = get("/v1/stats/timeseries?seconds=3");
        assertThat(response.status()).as(response.bodyText()).isEqualTo(200);
        JsonNode body = json(response);
        assertThat(body.get("interval_seconds").asInt()).isEqualTo(1);
        assertThat(body.get("end").asLong()).isEqualTo(T0 / 1000 + 1);
        JsonNode series = body.get("series");
        assertThat(series.get("accepted").toString()).isEqualTo("[0,2,0]");
        assertThat(series.get("refused_tenant").toString()).isEqualTo("[0,0,1]");
        assertThat(series.get("verification_failed").toString()).isEqualTo("[0,0,1]");
        assertThat(series.get("duplicate").toString()).isEqualTo("[0,0,0]");
        List<String> names = JSON.convertValue(series, Map.class).keySet().stream().map(Object::toString).toList();
        assertThat(names).containsExactly("accepted", "duplicate", "refused_ip", "refused_node", "refused_source",
                "refused_tenant", "refused_tenant_bytes", "refused_tenant_overload", "refused_tenant_storage",
                "refused_overload",
                "verification_failed");
    }

    @Test
    void timeseriesDefaultsToNineHundredSeconds() {
        JsonNode body = json(get("/v1/stats/timeseries"));
        assertThat(body.get("series").get("accepted").size()).isEqualTo(900);
        assertThat(json(get("/v1/stats/timeseries?seconds=900")).get("series").get("duplicate").size()).isEqualTo(900);
        assertThat(json(get("/v1/stats/timeseries?seconds=1")).get("series").get("duplicate").size()).isEqualTo(1);
    }

    @Test
    void timeseriesRefusesSecondsOutsideOneToNineHundred() {
        for (String bad : new String[] {"0", "901", "-1", "abc", "", "1.5", "99999999999"}) {
            AdminResponse response = get("/v1/stats/timeseries?seconds=" + bad);
            assertThat(response.status()).as(bad).isEqualTo(400);
            JsonNode body = json(response);
            assertThat(body.get("error").asText()).isEqualTo("invalid_seconds");
            assertThat(body.get("message").asText())
                    .isEqualTo("seconds must be an integer from 1 to 900, got \"" + bad + "\"");
        }
    }

    @Test
    void sourcesListsTheConfigurationWithoutSecrets() {
        AdminResponse response = get("/v1/sources");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.bodyText()).doesNotContain("super-secret");
        assertThat(response.bodyText()).isEqualTo("{\"sources\":["
                + "{\"id\":\"gh\",\"tenant\":\"acme\",\"scheme\":\"github\",\"secrets\":2,\"dedupe\":\"github\","
                + "\"bytes_per_second\":1000000},"
                + "{\"id\":\"open\",\"tenant\":null,\"scheme\":\"none\",\"secrets\":0,\"dedupe\":\"none\","
                + "\"bytes_per_second\":5000}]}");
    }

    @Test
    void statusReportsReadinessAndStoreBytes() {
        assertThat(get("/v1/status").bodyText())
                .isEqualTo("{\"ready\":true,\"not_ready_reason\":null,\"store_bytes\":4096}");
        notReady.set("store_failing");
        assertThat(get("/v1/status").bodyText())
                .isEqualTo("{\"ready\":false,\"not_ready_reason\":\"store_failing\",\"store_bytes\":4096}");
    }

    @Test
    void consoleRoutesNeedTheTokenAndOnlyAnswerGet() {
        for (String path : new String[] {"/v1/stats/timeseries", "/v1/sources", "/v1/status"}) {
            assertThat(api.handle(AdminRequest.of("GET", path, Map.of(), null)).status()).as(path).isEqualTo(401);
            AdminResponse post = api.handle(AdminRequest.of("POST", path,
                    Map.of("Authorization", "Bearer " + TOKEN), null));
            assertThat(post.status()).as(path).isEqualTo(405);
            assertThat(post.headers()).containsEntry("Allow", "GET");
        }
    }
}

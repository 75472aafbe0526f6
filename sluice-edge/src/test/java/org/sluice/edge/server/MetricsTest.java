package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /metrics} on the admin listener: the names the contract lists, and series that junk cannot mint. */
class MetricsTest {

    @TempDir
    Path dir;

    static String scrape(TestEdge edge) {
        InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
        Http.Response r = Http.get(admin, "/metrics");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).startsWith("text/plain");
        return r.body();
    }

    static Set<String> series(String text) {
        return text.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.substring(0, l.lastIndexOf(' '))).collect(Collectors.toSet());
    }

    @Test
    void everyContractMetricIsExposedAndAFloodOfJunkMintsNoSeries() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", routing: tenant_path}
                rate_limits:
                  default: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """)) {
            assertThat(edge.post("/hooks/t1/a", Map.of("X-Event-Id", "1"), "{}").status()).isEqualTo(202);
            String before = scrape(edge);
            for (String name : new String[] {"sluice_ingest_requests_total{outcome=\"accepted\"}",
                "sluice_admission_refusals_total{scope=\"ip\"}", "sluice_ingest_duration_seconds_count",
                "sluice_intake_commit_batch_size_count", "sluice_intake_commit_seconds_count",
                "sluice_intake_queue_hooks", "sluice_intake_queue_bytes", "sluice_store_wal_syncs_total",
                "sluice_store_commit_sync_seconds_total", "sluice_limiter_rows",
                "sluice_limiter_swept_total", "sluice_delivery_hook_reads_total{from=\"memory\"}",
                "sluice_delivery_hook_reads_total{from=\"store\"}", "jvm_memory_used_bytes", "sluice_build_info{commit=\"",
                "process_uptime_seconds", "process_files_open_files", "process_files_max_files", "jvm_info{"}) {
                assertThat(before).contains(name);
            }
            for (int i = 0; i < 50; i++) {
                edge.post("/hooks/tenant-" + i + "/a", Map.of("X-Event-Id", "junk-" + i), "{}");
                edge.post("/hooks/tenant-" + i + "/nope-" + i, Map.of(), "{}");
                edge.post("/random/" + i, Map.of(), "{}");
            }
            Set<String> sluiceBefore = series(before).stream().filter(s -> s.startsWith("sluice_")).collect(Collectors.toSet());
            Set<String> sluiceAfter = series(scrape(edge)).stream().filter(s -> s.startsWith("sluice_")).collect(Collectors.toSet());
            assertThat(sluiceAfter).isEqualTo(sluiceBefore);
            assertThat(sluiceAfter).noneMatch(s -> s.contains("tenant-") || s.contains("nope") || s.contains("junk"));
        }
    }

    @Test
    void otherAdminPathsAre404() {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                """)) {
            InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
            assertThat(Http.get(admin, "/anything").status()).isEqualTo(404);
            assertThat(Http.get(admin, "/v1/anything").status()).isEqualTo(401); // the admin API: token first
        }
    }
}

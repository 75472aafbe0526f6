package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;

/**
 * The retention thread on a real server, on a manual wall clock: hooks with no delivery go
 * once older than {@code retention.hooks_seconds}; a hook with a pending delivery stays
 * however old (no dispatcher runs here, so its rows stay pending); the newest hook goes
 * too once it is old enough (issue 46, point 5). Deletions are counted in
 * {@code sluice_retention_deleted_total}.
 */
class RetentionTest {

    static final String CONFIG = """
            http: {listen: "127.0.0.1:0"}
            destinations:
              a: {url: "http://127.0.0.1:9/a"}
            retention: {hooks_seconds: 10, dead_seconds: 10}
            sources:
              fan: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [a]}
              keep: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
            """;

    @TempDir
    Path dir;

    @Test
    void hooksWithNoDeliveryAreDeletedAfterHooksSecondsAndAHookWithAPendingDeliveryNever() throws Exception {
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        try (TestEdge edge = TestEdge.startWith(dir, CONFIG, b -> b.epochMillis(now::get))) {
            HookStore store = edge.backends().store();
            String k1 = IngestSchedulingTest.accepted(edge.post("/hooks/keep", Map.of("X-Event-Id", "k1"), "{}"));
            String k2 = IngestSchedulingTest.accepted(edge.post("/hooks/keep", Map.of("X-Event-Id", "k2"), "{}"));
            String pending = IngestSchedulingTest.accepted(edge.post("/hooks/fan", Map.of("X-Event-Id", "p1"), "{}"));
            String k3 = IngestSchedulingTest.accepted(edge.post("/hooks/keep", Map.of("X-Event-Id", "k3"), "{}"));
            now.addAndGet(TimeUnit.SECONDS.toMillis(5));
            String newest = IngestSchedulingTest.accepted(edge.post("/hooks/keep", Map.of("X-Event-Id", "n1"), "{}"));

            edge.server.retainOnce();
            for (String id : List.of(k1, k2, pending, k3, newest)) {
                assertThat(store.get(id)).as("%s is younger than hooks_seconds", id).isPresent();
            }
            assertThat(deletedTotal(edge)).isZero();
            assertThat(metric(edge, "sluice_store_max_bytes")).as("no store.max_bytes: unbounded, 0").isZero();

            now.addAndGet(TimeUnit.SECONDS.toMillis(6)); // k1..k3 and p1 are 11 s old, n1 6 s
            TestEdge.await(() -> store.get(k3).isEmpty()); // the thread's own pass, no nudge
            edge.server.retainOnce();
            for (String id : List.of(k1, k2, k3)) {
                assertThat(store.get(id)).as("%s: no delivery, older than hooks_seconds", id).isEmpty();
            }
            assertThat(store.get(pending)).as("a pending delivery keeps its hook").isPresent();
            assertThat(store.get(newest)).isPresent();

            now.addAndGet(TimeUnit.DAYS.toMillis(30));
            edge.server.retainOnce();
            assertThat(store.get(pending)).as("however old").isPresent();
            assertThat(store.deliveries().deliveries(pending)).singleElement()
                    .extracting(DeliveryRow::state).isEqualTo(DeliveryState.PENDING);
            assertThat(store.get(newest)).as("the newest hook is deleted like any other").isEmpty();
            assertThat(deletedTotal(edge)).isEqualTo(4.0);
        }
    }

    /** {@code sluice_retention_deleted_total} from the admin listener's {@code /metrics}. */
    static double deletedTotal(TestEdge edge) {
        return metric(edge, "sluice_retention_deleted_total");
    }

    static double metric(TestEdge edge, String name) {
        Http.Response metrics = Http.get(edge.server.adminAddress(), "/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        for (String line : metrics.body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + name + " in /metrics");
    }
}

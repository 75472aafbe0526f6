package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;

/**
 * {@code sources.<id>.deliver_to} on a real server: an accepted hook's pending delivery rows
 * are written by the commit that acknowledges it (no dispatcher runs here, so they stay
 * pending), a duplicate schedules nothing, and the dispatcher's one route for new deliveries
 * ({@link CommitClaims#committed}) is taken once per commit that scheduled something.
 */
class IngestSchedulingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String CONFIG = """
            http: {listen: "127.0.0.1:0"}
            destinations:
              a: {url: "http://127.0.0.1:9/a"}
              b: {url: "http://127.0.0.1:9/b"}
            sources:
              fan: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [a, b]}
              one: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [b]}
              keep: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
            """;

    @TempDir
    Path dir;

    @Test
    void anAcceptedHookHasOnePendingRowPerDeliverToDestinationAndADuplicateSchedulesNothing() throws Exception {
        AtomicInteger wakeups = new AtomicInteger();
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            DeliveryLedger ledger = edge.backends().store().deliveries();
            // rows no attempt touches: held a day at their commit (the destinations refuse connections at once)
            edge.backends().store().setCommitClaims(new CommitClaims() {
                @Override
                public long claim(String destination, long nowMillis) {
                    return DeliveryAdminTest.HOLD_A_DAY.claim(destination, nowMillis);
                }

                @Override
                public void committed(List<Claimed> claimed, int unclaimed, boolean written) {
                    if (written) {
                        wakeups.incrementAndGet();
                    }
                }
            });

            String fanned = accepted(edge.post("/hooks/fan", Map.of("X-Event-Id", "e1"), "{\"n\":1}"));
            List<DeliveryRow> rows = ledger.deliveries(fanned);
            assertThat(rows).extracting(DeliveryRow::destination).containsExactlyInAnyOrder("a", "b");
            assertThat(rows).allSatisfy(r -> {
                assertThat(r.state()).isEqualTo(DeliveryState.PENDING);
                assertThat(r.attempts()).isZero();
            });
            assertThat(wakeups).as("told once, after the commit that wrote the rows").hasValue(1);

            Http.Response again = edge.post("/hooks/fan", Map.of("X-Event-Id", "e1"), "{\"n\":1}");
            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(JSON.readTree(again.body()).get("id").asText()).isEqualTo(fanned);
            assertThat(ledger.deliveries(fanned)).as("a duplicate schedules nothing").hasSize(2);
            assertThat(wakeups).as("a duplicate wakes nobody").hasValue(1);

            String single = accepted(edge.post("/hooks/one", Map.of("X-Event-Id", "e1"), "{\"n\":2}"));
            assertThat(ledger.deliveries(single)).extracting(DeliveryRow::destination).containsExactly("b");
            assertThat(wakeups).hasValue(2);

            String kept = accepted(edge.post("/hooks/keep", Map.of("X-Event-Id", "e1"), "{\"n\":3}"));
            assertThat(ledger.deliveries(kept)).as("a source without deliver_to schedules nothing").isEmpty();
            assertThat(wakeups).as("nothing scheduled, nobody woken").hasValue(2);

            long now = System.currentTimeMillis();
            assertThat(ledger.counts("a", now).pending()).isEqualTo(1);
            assertThat(ledger.counts("b", now).pending()).isEqualTo(2);
        }
    }

    @Test
    void pendingRowsWrittenAtIngestSurviveARestart() throws Exception {
        String id;
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            id = accepted(edge.post("/hooks/fan", Map.of("X-Event-Id", "r1"), "{}"));
        }
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            assertThat(edge.backends().store().deliveries().deliveries(id))
                    .extracting(DeliveryRow::destination, DeliveryRow::state)
                    .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a", DeliveryState.PENDING),
                            org.assertj.core.groups.Tuple.tuple("b", DeliveryState.PENDING));
        }
    }

    static String accepted(Http.Response r) throws Exception {
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }
}

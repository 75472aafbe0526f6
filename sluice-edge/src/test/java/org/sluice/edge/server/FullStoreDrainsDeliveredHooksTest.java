package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.HookReceiver;

/**
 * Issue 46, point 4 (its retention half): a store at {@code store.max_bytes} answered
 * {@code 503 store_full} until its hooks aged past {@code retention.hooks_seconds} (7 days
 * by default), even when every one of them had been delivered. While the store is at its
 * bound, retention now deletes delivered hooks early, oldest first, counted in
 * {@code sluice_retention_early_deleted_total}, so a full store drains as soon as its
 * deliveries finish; a hook with a pending delivery is still never deleted.
 */
class FullStoreDrainsDeliveredHooksTest {

    private static final long MAX_BYTES = 2_000_000;
    /** Retention ticks the test runs once every hook is delivered. */
    private static final int TICKS = 3;

    @TempDir
    Path dir;

    @Test
    void aFullStoreDeletesDeliveredHooksBeforeHooksSecondsAndTakesHooksAgain() throws Exception {
        String body = "{\"pad\":\"" + "x".repeat(1024) + "\"}";
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, """
                     http: {listen: "127.0.0.1:0"}
                     store: {max_bytes: %d}
                     retention: {hooks_seconds: 3600, dead_seconds: 3600}
                     destinations:
                       app: {url: "%s"}
                     sources:
                       fan: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                     """.formatted(MAX_BYTES, receiver.uri("/in")))) {
            int stored = StoreFullRecoveryTest.fillUntilFull(edge, "/hooks/fan", i -> Map.of(), body);
            TestEdge.await(() -> receiver.requestCount() >= stored
                    && edge.backends().store().deliveries().counts("app", System.currentTimeMillis()).pending() == 0);

            for (int t = 0; t < TICKS; t++) {
                edge.server.retainOnce();
            }
            Http.Response after = edge.post("/hooks/fan", Map.of(), body);
            assertThat(after.status()).as("%d ticks after every hook was delivered: %s", TICKS, after.body())
                    .isEqualTo(202);
            assertThat(Http.get(edge.address, "/readyz").status()).isEqualTo(200);
            assertThat(RetentionTest.metric(edge, "sluice_retention_early_deleted_total"))
                    .as("the delivered hooks deleted before hooks_seconds, counted").isGreaterThan(0);
        }
    }
}

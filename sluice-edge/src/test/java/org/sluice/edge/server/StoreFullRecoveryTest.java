package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46, point 6: a full store did not take hooks again within 60 s of retention freeing
 * the space. Space came back only through a reclaim (a flush and a compaction of whole
 * column families), which ran at most once a minute; once a reclaim had run, the next time
 * the store filled it stayed full for the rest of that minute, whatever retention deleted.
 * With the numbers ({@code store.max_bytes: 2000000}, {@code retention: {hooks_seconds:
 * 1, dead_seconds: 1}}) the store is filled twice; after the second fill the old hooks are
 * deleted and the store must take hooks again within {@value #TICKS} retention ticks (counted,
 * run by the test), with {@code /readyz} and ingest agreeing.
 */
class StoreFullRecoveryTest {

    private static final long MAX_BYTES = 2_000_000;
    /** Retention ticks the test runs after the old hooks are deleted; the store must take hooks within these. */
    static final int TICKS = 3;

    @TempDir
    Path dir;

    @Test
    void aFullStoreTakesHooksAgainWithinTicksOfRetentionFreeingSpaceEvenRightAfterAnEarlierReclaim() throws Exception {
        AtomicLong now = new AtomicLong(1_800_000_000_000L);
        String body = "{\"pad\":\"" + "x".repeat(1024) + "\"}";
        try (TestEdge edge = TestEdge.startWith(dir, """
                http: {listen: "127.0.0.1:0"}
                store: {max_bytes: %d}
                retention: {hooks_seconds: 1, dead_seconds: 1}
                sources:
                  keep: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                """.formatted(MAX_BYTES), b -> b.epochMillis(now::get))) {
            int next = 0;
            for (int round = 1; round <= 2; round++) {
                int first = next;
                int accepted = fillUntilFull(edge, "/hooks/keep", i -> Map.of("X-Event-Id", "k" + (first + i)), body);
                next += accepted + 1;
                assertThat(accepted).as("round %d", round).isPositive();
                assertThat(Http.get(edge.address, "/readyz").status()).isEqualTo(503);

                now.addAndGet(TimeUnit.SECONDS.toMillis(2)); // every stored hook is past hooks_seconds
                for (int t = 0; t < TICKS; t++) {
                    edge.server.retainOnce();
                }
                Http.Response after = edge.post("/hooks/keep", Map.of("X-Event-Id", "k" + next++), body);
                assertThat(after.status()).as("round %d: %d ticks after retention freed the space: %s", round, TICKS,
                        after.body()).isEqualTo(202);
                assertThat(Http.get(edge.address, "/readyz").status()).as("readiness agrees").isEqualTo(200);
            }
        }
    }

    /**
     * Posts {@code body} to {@code path} (the i-th post with {@code headers(i)}), each 202
     * followed by a retention tick, which reads the store's size again, until one is answered
     * {@code 503 store_full}; returns how many were accepted. Fails past 5000 posts.
     */
    static int fillUntilFull(TestEdge edge, String path, IntFunction<Map<String, String>> headers, String body) {
        for (int i = 0; i < 5_000; i++) {
            Http.Response r = edge.post(path, headers.apply(i), body);
            if (r.status() == 503) {
                assertThat(r.body()).isEqualTo("{\"error\":\"store_full\"}");
                return i;
            }
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            edge.server.retainOnce();
        }
        throw new AssertionError("the store did not reach store.max_bytes within 5000 hooks");
    }
}

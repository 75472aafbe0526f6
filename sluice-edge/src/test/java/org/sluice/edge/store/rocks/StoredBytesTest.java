package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;

/**
 * Each tenant's stored body bytes ({@code rate_limits.*.max_stored_bytes}) on a real RocksDB:
 * counted at commit (duplicates not), rebuilt by the scan at open, taken back when retention
 * deletes a hook, and the map holding no tenant once every hook of every tenant is gone.
 */
class StoredBytesTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong wall = new AtomicLong(T0);

    private RocksHookStore open(boolean count) {
        return RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get)
                .withCountStoredBytes(count));
    }

    private static PendingHook hook(String tenant, String key, int bodyBytes) {
        return new PendingHook(tenant, "src", key, T0, Map.of("X-Note", "headers are not counted"),
                new byte[bodyBytes]);
    }

    @Test
    void commitsAddEachTenantsBodyBytesAndDuplicatesAddNothing() {
        try (RocksHookStore store = open(true)) {
            List<CommitResult> results = store.commit(List.of(hook("a", "k1", 300), hook("a", "k1", 300),
                    hook("b", null, 7), hook("a", "k2", 0)));
            assertThat(results).extracting(CommitResult::status).containsExactly(CommitResult.Status.ACCEPTED,
                    CommitResult.Status.DUPLICATE, CommitResult.Status.ACCEPTED, CommitResult.Status.ACCEPTED);
            store.commit(List.of(hook("a", "k1", 300))); // a duplicate of a stored key
            assertThat(store.storedBytes("a")).isEqualTo(300);
            assertThat(store.storedBytes("b")).isEqualTo(7);
            assertThat(store.storedBytes("c")).isZero();
        }
    }

    @Test
    void manyTenantsStoredThenDeletedLeaveTheMapEmpty() {
        int tenants = 500;
        try (RocksHookStore store = open(true)) {
            List<PendingHook> batch = new ArrayList<>();
            for (int t = 0; t < tenants; t++) {
                batch.add(hook("t" + t, null, 10 + t));
                batch.add(hook("t" + t, null, 1));
            }
            store.commit(batch);
            assertThat(store.storedBytesTenants()).isEqualTo(tenants);
            assertThat(store.storedBytes("t42")).isEqualTo(10 + 42 + 1);
        }
        try (RocksHookStore store = open(true)) { // rebuilt by the scan at open
            assertThat(store.storedBytesTenants()).isEqualTo(tenants);
            assertThat(store.storedBytes("t42")).isEqualTo(10 + 42 + 1);
            assertThat(store.storedBytes("t499")).isEqualTo(10 + 499 + 1);

            wall.addAndGet(60_000);
            int deleted = 0;
            while (true) {
                var pass = store.deliveries().retentionPass(wall.get(), 1000, 1000, 97);
                deleted += pass.hooksDeleted();
                if (!pass.more()) {
                    break;
                }
            }
            assertThat(deleted).isEqualTo(2 * tenants);
            assertThat(store.storedBytes("t42")).isZero();
            assertThat(store.storedBytesTenants()).as("an entry goes when its count reaches 0").isZero();
        }
    }

    @Test
    void aStoreNotAskedToCountAnswersZeroAndHoldsNothing() {
        try (RocksHookStore store = open(false)) {
            store.commit(List.of(hook("a", null, 300)));
            assertThat(store.storedBytes("a")).isZero();
            assertThat(store.storedBytesTenants()).isZero();
        }
        try (RocksHookStore store = open(true)) { // switched on later: the scan counts what is there
            assertThat(store.storedBytes("a")).isEqualTo(300);
        }
    }
}

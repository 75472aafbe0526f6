package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.UuidV7;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * A replay's copy and the follower's record of one hook in one working set (a real RocksDB
 * store): the follower, behind the replay, reads the hook after its copy, and the hook gets
 * the deliveries the copy lacked; a record read twice by the follower changes nothing.
 */
class LogReplayCopiesTest {

    @TempDir
    Path dir;

    private static PendingHook hook(List<String> destinations) {
        return new PendingHook("t", "s", null, 1_000L, Map.of(), "{}".getBytes(StandardCharsets.UTF_8), destinations);
    }

    @Test
    void theFollowerReadingAHookAfterItsReplayedCopyGivesItItsOtherDeliveries() {
        try (RocksHookStore store = RocksHookStore.open(dir)) {
            UUID id = new UuidV7().next(System.currentTimeMillis());
            // the replay's copy: one delivery, to app
            assertThat(store.commitWithIds(List.of(hook(List.of("app"))), List.of(id)).get(0).status())
                    .isEqualTo(CommitResult.Status.ACCEPTED);

            // the follower reads the record, logged for app and audit
            List<PendingHook> logged = List.of(hook(List.of("app", "audit")));
            List<CommitResult> results = store.commitWithIds(logged, List.of(id));
            assertThat(results.get(0).status()).isEqualTo(CommitResult.Status.DUPLICATE);
            LogReplay.completeCopies(store, logged, results, () -> 2_000L);
            assertThat(store.deliveries().deliveries(id.toString())).extracting(DeliveryRow::destination)
                    .containsExactlyInAnyOrder("app", "audit");
            DeliveryRow app = row(store, id, "app");

            // read again (a rewind): every delivery is there, nothing changes
            LogReplay.completeCopies(store, logged, store.commitWithIds(logged, List.of(id)), () -> 3_000L);
            assertThat(store.deliveries().deliveries(id.toString())).hasSize(2)
                    .allMatch(r -> r.state() == DeliveryState.PENDING);
            assertThat(row(store, id, "app")).isEqualTo(app);
        }
    }

    private static DeliveryRow row(RocksHookStore store, UUID id, String destination) {
        return store.deliveries().deliveries(id.toString()).stream().filter(r -> r.destination().equals(destination))
                .findFirst().orElseThrow();
    }
}

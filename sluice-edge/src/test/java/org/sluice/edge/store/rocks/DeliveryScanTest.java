package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryScan;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.Hooks;

/** The range walk replays use, on a real RocksDB in a temp dir with a manual wall clock. */
class DeliveryScanTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(T0);
    private RocksHookStore store;
    private int keys;

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
    }

    @AfterEach
    void close() {
        assertThat(LedgerChecks.verify(store.deliveries())).isEmpty();
        store.close();
    }

    /** One hook at each of {@code millis}, each to {@code destinations}. */
    private List<String> commitAt(List<Long> millis, String... destinations) {
        List<String> ids = new ArrayList<>();
        for (long m : millis) {
            wall.set(m);
            CommitResult r = store.commit(List.of(Hooks.hook("k" + keys++).withDestinations(List.of(destinations)))).get(0);
            assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
            ids.add(r.id());
        }
        return ids;
    }

    private List<String> walk(String destination, long from, long to, int maxHooks) {
        List<String> out = new ArrayList<>();
        String cursor = null;
        int steps = 0;
        do {
            DeliveryScan.Page page = DeliveryScan.rows(store, destination, from, to, cursor, maxHooks);
            page.rows().forEach(r -> out.add(r.hookId()));
            assertThat(page.rows()).allSatisfy(r -> assertThat(r.destination()).isEqualTo(destination));
            cursor = page.cursor();
            assertThat(++steps).as("the walk ends").isLessThan(1000);
        } while (cursor != null);
        return out;
    }

    @Test
    void aRangeIsHalfOpenAndOnlyHooksWithARowToTheDestinationAreReturned() {
        // ids are time-ordered and never go back with the clock: commit in time order
        List<String> app = new ArrayList<>(commitAt(List.of(T0, T0 + 10, T0 + 10), "app"));
        List<String> other = commitAt(List.of(T0 + 12, T0 + 15), "other");
        app.addAll(commitAt(List.of(T0 + 19, T0 + 20, T0 + 30), "app"));
        assertThat(walk("app", T0 + 10, T0 + 20, 100)).containsExactly(app.get(1), app.get(2), app.get(3));
        assertThat(walk("other", T0 + 10, T0 + 20, 100)).containsExactlyElementsOf(other);
        assertThat(walk("app", T0, T0 + 31, 100)).containsExactlyElementsOf(app);
        assertThat(walk("app", T0 + 31, T0 + 100, 100)).isEmpty();
        assertThat(walk("app", T0 + 10, T0 + 10, 100)).isEmpty();
        assertThat(walk("nowhere", T0, T0 + 100, 100)).isEmpty();
    }

    @Test
    void aWalkInSmallStepsSeesEveryHookOnceAndEachStepExaminesAtMostItsBound() {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            times.add(T0 + i / 3);   // several hooks per millisecond
        }
        List<String> ids = new ArrayList<>(commitAt(times.subList(0, 20), "app"));
        commitAt(List.of(T0 + 7, T0 + 7), "other");   // examined, not returned
        ids.addAll(commitAt(times.subList(20, 50), "app"));
        for (int step : new int[] {1, 2, 7, 100}) {
            assertThat(walk("app", T0, T0 + 100, step)).as("step " + step).containsExactlyElementsOf(ids);
        }
        DeliveryScan.Page first = DeliveryScan.rows(store, "app", T0, T0 + 100, null, 4);
        assertThat(first.rows()).hasSize(4);
        assertThat(first.cursor()).isEqualTo(ids.get(3));
    }

    @Test
    void rowsAreReturnedInTheirStoredState() {
        String id = commitAt(List.of(T0), "app").get(0);
        DeliveryRow pending = store.deliveries().deliveries(id).get(0);
        assertThat(store.deliveries().markDead(pending, "max_age", false, null, null, T0 + 5)).isTrue();
        DeliveryRow seen = DeliveryScan.rows(store, "app", T0, T0 + 1, null, 10).rows().get(0);
        assertThat(seen.state()).isEqualTo(DeliveryState.DEAD);
        assertThat(seen.deadReason()).isEqualTo("max_age");
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> DeliveryScan.rows(store, "app", 10, 5, null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliveryScan.rows(store, "app", -1, 5, null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliveryScan.rows(store, "app", 1, 5, null, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliveryScan.rows(store, "", 1, 5, null, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.ManualClock;

/** Replays on a real RocksDB store in a temp dir, paced on a manual clock. */
class ReplaysTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(T0);
    private final ManualClock clock = new ManualClock();
    /** Readings of {@link #clock} through the replays: their threads read it each time they ask their pacer. */
    private final AtomicLong asked = new AtomicLong();
    private HookStore store;
    private Replays replays;

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
        Clock counted = () -> {
            asked.incrementAndGet();
            return clock.nanoTime();
        };
        replays = new Replays(store, counted, wall::get);
    }

    @AfterEach
    void close() {
        replays.close();
        store.close();
    }

    /** Commits one hook per millisecond from the wall clock's current time; returns their ids. */
    private List<String> commit(int n, String... destinations) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PendingHook hook = new PendingHook("acme", "gh", null, wall.get(), null,
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), List.of(destinations));
            ids.add(store.commit(List.of(hook)).get(0).id());
            wall.incrementAndGet();
        }
        return ids;
    }

    private void kill(String hookId, String destination) {
        DeliveryRow row = store.deliveries().deliveries(hookId).stream()
                .filter(r -> r.destination().equals(destination)).findFirst().orElseThrow();
        assertThat(store.deliveries().markDead(row, DeadReason.PERMANENT_STATUS.code(), true, 410, null, wall.get())).isTrue();
    }

    private DeliveryRow row(String hookId, String destination) {
        return store.deliveries().deliveries(hookId).stream()
                .filter(r -> r.destination().equals(destination)).findFirst().orElseThrow();
    }

    /**
     * Waits until the replay thread has asked its pacer {@code times} more times (each ask
     * reads the clock once): what a test that expects a refusal waits for, rather than a sleep.
     */
    private void awaitAsked(int times) {
        long target = asked.get() + times;
        Eventually.until("the replay thread to ask its pacer " + times + " more times", () -> asked.get() >= target);
    }

    private Replays.Progress progress(String id) {
        return replays.get(id).orElseThrow();
    }

    @Test
    void aDeadOnlyReplaySchedulesExactlyTheDeadRowsOfTheDestinationInTheRange() throws Exception {
        List<String> before = commit(5, "app", "audit");
        long from = wall.get();
        List<String> inRange = commit(20, "app", "audit");
        long to = wall.get();
        List<String> after = commit(5, "app");
        for (int i = 0; i < 20; i += 2) {
            kill(inRange.get(i), "app");                 // 10 dead letters to app in the range
        }
        kill(inRange.get(1), "audit");                   // dead elsewhere: not replayed to app
        kill(before.get(0), "app");                      // dead before the range
        kill(after.get(0), "app");                       // dead after the range
        wall.addAndGet(1000);

        Replays.Progress started = replays.start("app", from, to, true, 1000, false);
        assertThat(started.matched()).isEqualTo(10);
        Eventually.until("the replay to end", () -> !progress(started.id()).running());
        Replays.Progress done = progress(started.id());
        assertThat(done.scheduled()).isEqualTo(10);
        for (int i = 0; i < 20; i++) {
            DeliveryRow r = row(inRange.get(i), "app");
            if (i % 2 == 0) {
                assertThat(r.state()).isEqualTo(DeliveryState.PENDING);
                assertThat(r.attempts()).isZero();
                assertThat(r.scheduledAtMillis()).isEqualTo(wall.get());
            } else {
                assertThat(r.scheduledAtMillis()).as("untouched").isLessThan(from + 20);
            }
        }
        assertThat(row(inRange.get(1), "audit").state()).isEqualTo(DeliveryState.DEAD);
        assertThat(row(before.get(0), "app").state()).isEqualTo(DeliveryState.DEAD);
        assertThat(row(after.get(0), "app").state()).isEqualTo(DeliveryState.DEAD);

        // delivered and dead are read from the rows it scheduled
        DeliveryRow one = row(inRange.get(0), "app");
        assertThat(store.deliveries().markDelivered(one, 200, wall.get())).isTrue();
        DeliveryRow two = row(inRange.get(2), "app");
        assertThat(store.deliveries().markDead(two, "max_attempts", true, 500, null, wall.get())).isTrue();
        Replays.Progress kept = progress(started.id());
        assertThat(kept.delivered()).as("within a second of the last count: the kept figures, no walk").isZero();
        assertThat(kept.dead()).isZero();
        clock.advance(Duration.ofNanos(Replays.RECOUNT_NANOS));
        Replays.Progress counted = progress(started.id());
        assertThat(counted.delivered()).isEqualTo(1);
        assertThat(counted.dead()).isEqualTo(1);

        // every row it scheduled finished: the figures are final, never walked for again
        for (int i = 4; i < 20; i += 2) {
            assertThat(store.deliveries().markDelivered(row(inRange.get(i), "app"), 200, wall.get())).isTrue();
        }
        clock.advance(Duration.ofNanos(Replays.RECOUNT_NANOS));
        assertThat(progress(started.id()).delivered()).isEqualTo(9);
        assertThat(store.deliveries().redeliver(inRange.get(0), List.of("app"), wall.get())).isPresent(); // pending again
        clock.advance(Duration.ofNanos(Replays.RECOUNT_NANOS));
        assertThat(progress(started.id()).delivered()).as("settled").isEqualTo(9);
    }

    /** Issue 46, point 7: replays to one destination are bounded, and a range past the maximum needs force. */
    @Test
    void atMostTwoReplaysRunToADestinationAndARangeWiderThanTheMaximumNeedsForce() throws Exception {
        long from = wall.get();
        List<String> ids = commit(10, "app", "other");
        for (String id : ids) {
            kill(id, "app");
        }
        long to = wall.get();
        // rate 1 on a clock that stands still: one redelivery each, then they wait, running
        Replays.Progress one = replays.start("app", from, to, true, 1, false);
        Replays.Progress two = replays.start("app", from, to, true, 1, false);
        assertThatThrownBy(() -> replays.start("app", from, to, true, 1, false))
                .isInstanceOf(Replays.TooManyReplays.class).hasMessageContaining("app");

        long month = Replays.MAX_RANGE_MILLIS;
        wall.addAndGet(month);
        assertThatThrownBy(() -> replays.start("other", from, wall.get(), false, 1, false))
                .isInstanceOf(Replays.RangeTooWide.class).hasMessageContaining("force");
        assertThatThrownBy(() -> replays.start("other", 0, Long.MAX_VALUE, false, 1, false))
                .as("1970 to far beyond now").isInstanceOf(Replays.RangeTooWide.class);
        assertThat(replays.start("other", wall.get() - month, wall.get(), false, 1, false).matched())
                .as("exactly the maximum, another destination's own two").isZero();
        assertThat(replays.start("other", 0, Long.MAX_VALUE, false, 1, true).matched()).as("forced").isEqualTo(10);
        assertThatThrownBy(() -> replays.start("other", from, to, false, 1, false))
                .isInstanceOf(Replays.TooManyReplays.class);
        assertThat(progress(one.id()).running()).isTrue();
        assertThat(progress(two.id()).running()).isTrue();
    }

    @Test
    void aReplayOfEverythingSchedulesEveryRowToTheDestinationWhateverItsState() throws Exception {
        long from = wall.get();
        List<String> ids = commit(600, "app");          // more than two pages
        commit(3, "other");                              // no row to app
        kill(ids.get(7), "app");
        assertThat(store.deliveries().markDelivered(row(ids.get(8), "app"), 200, wall.get())).isTrue();
        wall.addAndGet(10);
        Replays.Progress started = replays.start("app", from, wall.get(), false, 10_000, false);
        assertThat(started.matched()).isEqualTo(600);
        clock.advance(Duration.ofSeconds(1));
        Eventually.until("the replay to end", () -> !progress(started.id()).running());
        assertThat(progress(started.id()).scheduled()).isEqualTo(600);
        assertThat(row(ids.get(7), "app").state()).isEqualTo(DeliveryState.PENDING);
        assertThat(row(ids.get(8), "app").state()).isEqualTo(DeliveryState.PENDING);
    }

    @Test
    void pacingNeverSchedulesMoreThanBurstPlusRateTimesElapsed() throws Exception {
        long from = wall.get();
        List<String> ids = commit(40, "app");
        for (String id : ids) {
            kill(id, "app");
        }
        Replays.Progress started = replays.start("app", from, wall.get(), true, 10, false);
        assertThat(started.matched()).isEqualTo(40);
        // burst: one second's worth at once, then nothing while the clock stands still
        Eventually.until("10 deliveries scheduled", () -> progress(started.id()).scheduled() == 10);
        for (int i = 0; i < 5; i++) {
            awaitAsked(1); // the thread asked again (after its longest park at most) and was refused
            assertThat(progress(started.id()).scheduled()).isEqualTo(10);
        }
        clock.advance(Duration.ofSeconds(1));
        Eventually.until("20 deliveries scheduled", () -> progress(started.id()).scheduled() == 20);
        clock.advance(Duration.ofMillis(500));
        Eventually.until("25 deliveries scheduled", () -> progress(started.id()).scheduled() == 25);
        awaitAsked(2);
        assertThat(progress(started.id()).scheduled()).isEqualTo(25);
        assertThat(progress(started.id()).running()).isTrue();
        clock.advance(Duration.ofSeconds(10));  // a long pause fills the bucket to its burst, no more
        Eventually.until("35 deliveries scheduled", () -> progress(started.id()).scheduled() == 35);
        awaitAsked(2);
        assertThat(progress(started.id()).scheduled()).isEqualTo(35);
        clock.advance(Duration.ofSeconds(1));
        Eventually.until("the replay to end", () -> !progress(started.id()).running());
        assertThat(progress(started.id()).scheduled()).isEqualTo(40);
    }

    @Test
    void badRequestsAreRefusedAndAnEmptyRangeIsDoneAtOnce() throws Exception {
        assertThatThrownBy(() -> replays.start("app", 10, 5, false, 1, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> replays.start("app", 1, 5, false, 0, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> replays.start("app", 1, 5, false, Replays.MAX_RATE + 1, false))
                .isInstanceOf(IllegalArgumentException.class);
        Replays.Progress empty = replays.start("app", 1, 5, false, 1, false);
        assertThat(empty.matched()).isZero();
        Eventually.until("the replay to end", () -> !progress(empty.id()).running());
        assertThat(replays.get("no-such-replay")).isEmpty();
    }

    @Test
    void onlyTheNewestReplaysAreKept() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < Replays.KEPT + 5; i++) {
            String id = replays.start("app", 1, 5, false, 1, false).id();
            Eventually.until("the replay to end", () -> !progress(id).running());
            ids.add(id);
        }
        assertThat(replays.get(ids.get(0))).isEmpty();
        assertThat(replays.get(ids.get(4))).isEmpty();
        assertThat(replays.get(ids.get(5))).isPresent();
        assertThat(replays.get(ids.get(ids.size() - 1))).isPresent();
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.ManualClock;

/**
 * What the paced-dispatch tests share: real RocksDB stores in a temp dir, dispatchers sending
 * to real {@link HookReceiver}s, all on one manual clock (the wall clock follows it) that the
 * test advances between passes, and everything closed in reverse order.
 */
final class PacedDispatchRig implements AutoCloseable {

    static final long T0 = 1_800_000_000_000L;
    static final Duration WAIT = Duration.ofSeconds(60);

    final ManualClock clock = new ManualClock();
    final LongSupplier wall = () -> T0 + clock.nanoTime() / 1_000_000;
    private final Path dir;
    private final List<AutoCloseable> closing = new ArrayList<>();

    PacedDispatchRig(Path dir) {
        this.dir = dir;
    }

    HookStore store(String name) {
        HookStore s = RocksHookStore.open(dir.resolve(name), RocksHookStore.Options.defaults().withWallClock(wall));
        closing.add(s);
        return s;
    }

    /** A dispatcher of {@code d} over {@code store}, leasing from {@code pacing} (null: its own buckets). */
    Dispatcher dispatcher(HookStore store, Destination d, FleetPacing pacing, MeterRegistry registry) {
        Dispatcher dispatcher = new Dispatcher(List.of(d), store, pacing, clock, wall, registry, new SplittableRandom(7),
                Duration.ofSeconds(5), (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind,
                        org.sluice.edge.netio.TestTransport.io(), null, w));
        closing.add(dispatcher);
        return dispatcher;
    }

    /** Commits {@code n} hooks for {@code app}, up to 100 a commit. */
    void commit(HookStore store, int n) {
        for (int from = 0; from < n; from += 100) {
            List<PendingHook> batch = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 100); i++) {
                batch.add(new PendingHook("acme", "gh", null, wall.getAsLong(), Map.of("Content-Type", "application/json"),
                        ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), List.of("app")));
            }
            assertThat(store.commit(batch)).allMatch(c -> c.status() == CommitResult.Status.ACCEPTED);
        }
    }

    /** Passes until one starts nothing, each waited for until its attempts are answered; returns the passes run. */
    static int drain(Dispatcher d) {
        int passes = 0;
        int started;
        do {
            started = d.pump();
            passes++;
            assertThat(d.awaitIdle(WAIT)).as("attempts answered within " + WAIT).isTrue();
        } while (started > 0);
        return passes;
    }

    /** A receiver stamping arrivals with the rig's clock. */
    HookReceiver receiver() {
        HookReceiver r = HookReceiver.start(clock);
        closing.add(r);
        return r;
    }

    @Override
    public void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }
}

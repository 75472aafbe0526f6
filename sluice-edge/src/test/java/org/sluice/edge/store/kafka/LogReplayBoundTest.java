package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.ReplaySource;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.Eventually;

/**
 * A replay on the fleet's log ({@link LogReplay}) at a {@code rate} far above what is
 * delivered does not pile its copies up in the working set: against one real broker and a
 * real RocksDB working set with no dispatcher, the reader stops once the destination has
 * its bound of deliveries pending (plus at most one write), and reads on as they finish,
 * until every hook of the range is scheduled exactly once.
 */
class LogReplayBoundTest {

    private static final int HOOKS = 700;
    private static final int BOUND = 100;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    @Test
    void aFastReplayWaitsWhileItsDestinationHasItsBoundPendingAndSchedulesEveryHookOnce() throws Exception {
        KafkaLogSettings settings = new KafkaLogSettings("a", List.of(brokers.bootstrapServers()), "bound", 2, 1, 2, 3000,
                Map.of(), 86_400_000L);
        try (KafkaHookLog log = KafkaHookLog.open(settings, System::currentTimeMillis, ProduceListener.NONE);
             RocksHookStore workingSet = RocksHookStore.open(dir.resolve("working-set"),
                     RocksHookStore.Options.defaults().withSyncCommits(false))) {
            List<PendingHook> batch = new ArrayList<>();
            for (int i = 0; i < HOOKS; i++) {
                batch.add(new PendingHook("acme", "s" + (i % 4), null, System.currentTimeMillis(), Map.of(),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), List.of("app")));
            }
            assertThat(log.commit(batch)).extracting(CommitResult::status).containsOnly(CommitResult.Status.ACCEPTED);

            LogReplay replay = new LogReplay(settings, log.clients(), workingSet, null, BOUND);
            AtomicLong scheduled = new AtomicLong();
            ReplaySource.Pacing unpaced = new ReplaySource.Pacing() {
                @Override
                public boolean admit() {
                    return true;
                }

                @Override
                public void scheduled(int hooks) {
                    scheduled.addAndGet(hooks);
                }
            };
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> replay.schedule("app", 0,
                    System.currentTimeMillis() + 60_000, false, System::currentTimeMillis, unpaced));

            Eventually.until("the reader waits for room", WAIT, () -> replay.waitsForRoom() >= 1);
            long pending = workingSet.deliveries().counts("app", System.currentTimeMillis()).pending();
            assertThat(workingSet.deliveries().pendingCount("app")).as("the ledger's counter, no seek").isEqualTo(pending);
            assertThat(scheduled.get()).as("scheduled when it first waited").isEqualTo(pending)
                    .isBetween((long) BOUND, (long) BOUND + LogReplay.BATCH).isLessThan(HOOKS);
            assertThat(run).isNotDone();

            // the deliveries finish (as a dispatcher would deliver them): the reader goes on
            Eventually.until("every hook scheduled", WAIT, () -> {
                List<String> due = workingSet.deliveries().due("app", Long.MAX_VALUE, 1000).stream()
                        .map(DeliveryRow::hookId).toList();
                workingSet.forget(due);
                return scheduled.get() == HOOKS && run.isDone();
            });
            run.get(10, TimeUnit.SECONDS);
            assertThat(replay.waitsForRoom()).as("waits for room").isGreaterThanOrEqualTo(2);
        }
    }
}

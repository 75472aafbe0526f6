package org.sluice.bench.edge;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.sluice.edge.intake.Intake;
import org.sluice.edge.intake.IntakeSettings;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * Load on the durable commit path alone (no HTTP): submitter threads keep a fixed number of
 * hooks in flight through an {@link Intake} over a real {@link HookStore} with fsync, and
 * the tool reports acknowledged hooks per second, submit-to-acknowledgement latency and the
 * mean batch size. Comparing {@code max_batch} 256 with 1 shows what group commit buys.
 *
 * <p>args: seconds submitters in-flight-per-submitter max-batch partitions body-bytes [data-dir]
 */
public final class IntakeLoad {

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int submitters = Integer.parseInt(args[1]);
        int inFlight = Integer.parseInt(args[2]);
        int maxBatch = Integer.parseInt(args[3]);
        int partitions = Integer.parseInt(args[4]);
        int bodyBytes = Integer.parseInt(args[5]);
        Path dir = args.length > 6 ? Path.of(args[6]) : Files.createTempDirectory("sluice-intake-load");
        byte[] body = new byte[bodyBytes];
        java.util.Arrays.fill(body, (byte) 'x');

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Recorder latency = new Recorder(3);
        AtomicLong acked = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong keys = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        try (HookStore store = RocksHookStore.open(dir)) {
            Intake intake = Intake.start(store, IntakeSettings.defaults().withMaxBatch(maxBatch).withPartitions(partitions), registry);
            Thread[] threads = new Thread[submitters];
            for (int t = 0; t < submitters; t++) {
                threads[t] = new Thread(() -> {
                    Semaphore window = new Semaphore(inFlight);
                    while (!stop.get()) {
                        window.acquireUninterruptibly();
                        long start = System.nanoTime();
                        PendingHook hook = new PendingHook("bench", "load", "k" + keys.getAndIncrement(),
                                System.currentTimeMillis(), Map.of("Content-Type", "application/json"), body);
                        // the callback records the answer; nothing waits on the future it returns
                        var unused = intake.submit(hook).thenAccept(r -> {
                            if (measuring.get()) {
                                if (r.status() == CommitResult.Status.ACCEPTED) {
                                    acked.incrementAndGet();
                                    latency.recordValue(System.nanoTime() - start);
                                } else {
                                    refused.incrementAndGet();
                                }
                            }
                            window.release();
                        });
                    }
                }, "submitter-" + t);
                threads[t].start();
            }
            Thread.sleep(2_000); // warm-up, not measured
            DistributionSummary batches = registry.find("sluice.intake.commit.batch.size").summary();
            long batchCount0 = batches.count();
            double batchTotal0 = batches.totalAmount();
            latency.reset();
            measuring.set(true);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            measuring.set(false);
            long elapsed = System.nanoTime() - t0;
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            intake.close();
            Histogram h = latency.getIntervalHistogram();
            double secs = elapsed / 1e9;
            double meanBatch = (batches.totalAmount() - batchTotal0) / Math.max(1, batches.count() - batchCount0);
            System.out.printf("max_batch=%d partitions=%d submitters=%d in_flight=%d body=%dB: %.0f hooks/s acknowledged, "
                            + "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, mean batch %.1f, refused %d%n",
                    maxBatch, partitions, submitters, submitters * inFlight, bodyBytes, acked.get() / secs,
                    h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6, h.getValueAtPercentile(99.9) / 1e6,
                    meanBatch, refused.get());
        } finally {
            if (args.length <= 6) {
                BenchFiles.deleteTree(dir);
            }
        }
    }

    private IntakeLoad() {
    }
}

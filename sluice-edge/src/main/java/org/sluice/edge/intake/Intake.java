package org.sluice.edge.intake;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.log.Warnings;
import org.sluice.edge.threads.Threads;

/**
 * The group-commit batcher in front of the {@link HookLog}.
 *
 * <h2>Threads and ownership</h2>
 * <ul>
 *   <li>Submitters (the HTTP layer's threads) call {@link #submit}: reserve room in the
 *       global {@link Reservations} (lock-free; refused at once with OVERLOAD when full,
 *       nothing enqueued), then append to one {@link Partition}'s queue under its lock.</li>
 *   <li>One writer thread per partition takes a batch (up to {@code max_batch} hooks,
 *       waiting up to {@code max_delay_ms} for it to fill), commits it with one fsynced
 *       write, and completes each hook's future. Futures complete on this thread, never
 *       with a lock held; callers hop back to their own threads.</li>
 *   <li>One deadline thread removes hooks still queued past {@code commit_deadline_ms} and
 *       answers them OVERLOAD. A hook the writer has taken is never removed: a started
 *       commit is always waited out, so no hook is refused and then committed.</li>
 * </ul>
 * A hook's partition is a hash of (tenant, source, dedupe key), so copies of one key meet
 * in one partition and collapse within a batch; hooks without a key go round robin.
 * The reservation is released just before the hook's future completes.
 *
 * <h2>A writer that dies</h2>
 * A writer that throws (an {@link Error} from the commit, say a StackOverflowError or an
 * OutOfMemoryError) marks its partition down ({@link #partitionsDown()}, readiness), answers
 * every hook it holds and has not answered with STORE_UNAVAILABLE (a hook whose batch was
 * written may be among them: its sender's retry is then a duplicate; no hook is ever
 * answered ACCEPTED without its write) and ends. The deadline thread starts
 * a new writer for the partition {@value #RESTART_BACKOFF_MILLIS} ms (on the injected clock)
 * later; meanwhile the partition's queue keeps its hooks, and the deadline refuses those
 * that wait too long, as for a slow writer. {@code writers}, {@code down} and
 * {@code downSince} are guarded by {@code writers}' monitor.
 *
 * <h2>Shutdown</h2>
 * {@link #close()} refuses new hooks (OVERLOAD), restarts any writer that is down, lets
 * every writer drain its queue, and returns when the last batch is written: nothing
 * submitted before close is dropped (a partition whose writer dies during close has what it
 * still holds answered STORE_UNAVAILABLE). It does not close the store; the caller does that
 * afterwards.
 */
public final class Intake implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);

    /** How long a partition whose writer died stays down before a new writer starts. */
    static final long RESTART_BACKOFF_MILLIS = 1_000L;

    private final BatchCommitter committer;
    private final IntakeSettings settings;
    private final Clock clock;
    private final Reservations reserved;
    private final Partition[] partitions;
    @GuardedBy("writers")
    private final Thread[] writers;
    @GuardedBy("writers")
    private final boolean[] down;
    @GuardedBy("writers")
    private final long[] downSince;
    private final AtomicInteger partitionsDown = new AtomicInteger();
    private final ScheduledExecutorService deadlines;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final DistributionSummary batchSize;
    private final Timer commitTime;
    private final Warnings failureWarnings = new Warnings(LOG, TimeUnit.SECONDS.toNanos(10));

    private Intake(BatchCommitter committer, IntakeSettings settings, MeterRegistry registry, Clock clock) {
        this.committer = Objects.requireNonNull(committer, "committer");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reserved = new Reservations(settings.maxQueue(), settings.maxQueueBytes());
        this.batchSize = DistributionSummary.builder("sluice.intake.commit.batch.size")
                .description("Hooks per group commit").register(registry);
        this.commitTime = Timer.builder("sluice.intake.commit.seconds")
                .description("Time to write and fsync one group commit").register(registry);
        meters.add(batchSize);
        meters.add(commitTime);
        meters.add(Gauge.builder("sluice.intake.queue.hooks", reserved.hooks, Number::doubleValue).strongReference(true)
                .description("Hooks held in the batchers, queued and in flight").register(registry));
        meters.add(Gauge.builder("sluice.intake.queue.bytes", reserved.bytes, Number::doubleValue).strongReference(true)
                .description("Body bytes held in the batchers, queued and in flight").register(registry));
        meters.add(Gauge.builder("sluice.intake.partitions.down", partitionsDown, Number::doubleValue).strongReference(true)
                .description("Intake partitions whose writer died and has not been restarted yet").register(registry));

        partitions = new Partition[settings.partitions()];
        writers = new Thread[settings.partitions()];
        down = new boolean[settings.partitions()];
        downSince = new long[settings.partitions()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new Partition(settings, clock);
            writers[i] = newWriter(i);
        }
        deadlines = Threads.daemonScheduler("sluice-intake-deadlines");
    }

    /** Starts the writers over {@code store} with the system clock. */
    public static Intake start(HookLog store, IntakeSettings settings, MeterRegistry registry) {
        return start(store::commit, settings, registry, Clock.system());
    }

    /**
     * Starts the writers. {@code clock} times the commit deadline and the commit-time
     * metric (tests pass a manual clock to make deadlines exact).
     */
    public static Intake start(BatchCommitter committer, IntakeSettings settings, MeterRegistry registry, Clock clock) {
        Intake intake = new Intake(committer, settings, registry, clock);
        intake.startWriters();
        long tickMs = Math.max(10, Math.min(250, settings.commitDeadlineMs() / 10));
        // runs until close() shuts the executor down; tick() catches its own failures, so nothing reads the future
        var unused = intake.deadlines.scheduleWithFixedDelay(intake::tick, tickMs, tickMs, TimeUnit.MILLISECONDS);
        return intake;
    }

    /**
     * Queues a hook for commit. The future completes on a writer thread with ACCEPTED or
     * DUPLICATE once the batch is fsynced, STORE_UNAVAILABLE when the batch's write
     * failed, or OVERLOAD when its batch had not started by the commit deadline. When the
     * node's queue is full (or the intake is closing) the returned future is already
     * complete with OVERLOAD and nothing was queued.
     */
    public CompletableFuture<CommitResult> submit(PendingHook hook) {
        if (closed.get()) {
            return CompletableFuture.completedFuture(CommitResult.OVERLOAD);
        }
        long bytes = hook.queueBytes();
        if (!reserved.reserve(bytes)) {
            return CompletableFuture.completedFuture(CommitResult.OVERLOAD);
        }
        QueuedHook queued = new QueuedHook(hook, bytes, clock.nanoTime());
        if (!partitionFor(hook).enqueue(queued)) {
            reserved.release(bytes);
            return CompletableFuture.completedFuture(CommitResult.OVERLOAD);
        }
        return queued.future;
    }

    /** Hooks held now, queued and in flight ({@code sluice_intake_queue_hooks}). */
    public long queuedHooks() {
        return reserved.hooks.get();
    }

    /** Body bytes held now, queued and in flight ({@code sluice_intake_queue_bytes}). */
    public long queuedBytes() {
        return reserved.bytes.get();
    }

    public IntakeSettings settings() {
        return settings;
    }

    /**
     * Partitions whose writer died and has not been restarted yet
     * ({@code sluice_intake_partitions_down}; the node is not ready while it is above 0).
     */
    public int partitionsDown() {
        return partitionsDown.get();
    }

    /**
     * Stops accepting (later submits answer OVERLOAD), commits everything already queued,
     * waits for the writers to finish, and removes this intake's meters. Does not close the
     * store. Idempotent; a second call waits like the first.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            for (Partition p : partitions) {
                p.close();
            }
        }
        restartDownWriters(true); // a partition that is down drains too
        boolean interrupted = false;
        for (int i = 0; i < partitions.length; i++) { // one writer per partition
            // re-read after each join: a writer that died meanwhile may have been replaced by a restart
            for (Thread w = writer(i); w.isAlive(); w = writer(i)) {
                try {
                    w.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        // only a writer that died while closing leaves hooks behind; nothing will write them now
        List<QueuedHook> left = new ArrayList<>();
        for (Partition p : partitions) {
            p.takeAll(left);
        }
        answerAll(left, CommitResult.STORE_UNAVAILABLE);
        deadlines.shutdownNow();
        synchronized (meters) {
            meters.forEach(registry::remove);
            meters.clear();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- writer side

    private Partition partitionFor(PendingHook hook) {
        int n = partitions.length;
        if (n == 1) {
            return partitions[0];
        }
        if (hook.dedupeKey() == null) {
            return partitions[Math.floorMod(roundRobin.getAndIncrement(), n)];
        }
        int h = (hook.tenant().hashCode() * 31 + hook.source().hashCode()) * 31 + hook.dedupeKey().hashCode();
        h ^= h >>> 16;
        return partitions[Math.floorMod(h, n)];
    }

    private void startWriters() {
        synchronized (writers) {
            for (Thread w : writers) {
                w.start();
            }
        }
    }

    private Thread newWriter(int index) {
        return new Thread(() -> writeLoop(index), "sluice-intake-" + index);
    }

    private Thread writer(int index) {
        synchronized (writers) {
            return writers[index];
        }
    }

    private void writeLoop(int index) {
        Partition partition = partitions[index];
        List<QueuedHook> started = new ArrayList<>(settings.maxBatch());
        List<QueuedHook> overdue = new ArrayList<>();
        try {
            while (true) {
                started.clear();
                overdue.clear();
                if (!partition.takeBatch(started, overdue)) {
                    return;
                }
                answerAll(overdue, CommitResult.OVERLOAD);
                if (!started.isEmpty()) {
                    commit(started);
                }
            }
        } catch (Throwable t) { // an Error above all: this thread ends, but no hook it holds goes unanswered
            synchronized (writers) { // down before the answers: whoever sees the 503 sees the partition down
                down[index] = true;
                downSince[index] = clock.nanoTime();
                partitionsDown.incrementAndGet();
            }
            answerUnanswered(started, CommitResult.STORE_UNAVAILABLE);
            answerUnanswered(overdue, CommitResult.OVERLOAD);
            LOG.error("intake writer {} died; its partition is down (/readyz 503 intake_partition_down) and a new writer "
                    + "starts in {} ms", index, RESTART_BACKOFF_MILLIS, t);
        }
    }

    /** Deadline thread, every tick: refuse overdue hooks, restart writers whose backoff has passed. */
    private void tick() {
        try {
            expireOverdue();
            restartDownWriters(false);
        } catch (RuntimeException e) { // an exception would end the schedule: log it and tick again
            failureWarnings.warn("intake deadline tick failed: " + e, null);
        }
    }

    /** Starts a new writer for every partition that has been down for the backoff. Package-private so tests can drive it. */
    void restartDownWriters() {
        restartDownWriters(false);
    }

    private void restartDownWriters(boolean closing) {
        synchronized (writers) {
            if (closed.get() && !closing) {
                return; // close() restarts them itself
            }
            long now = clock.nanoTime();
            for (int i = 0; i < writers.length; i++) {
                if (down[i] && (closing || now - downSince[i] >= TimeUnit.MILLISECONDS.toNanos(RESTART_BACKOFF_MILLIS))) {
                    down[i] = false;
                    partitionsDown.decrementAndGet();
                    writers[i] = newWriter(i);
                    writers[i].start();
                    LOG.warn("intake writer {} restarted", i);
                }
            }
        }
    }

    private void commit(List<QueuedHook> batch) {
        List<PendingHook> hooks = new ArrayList<>(batch.size());
        for (QueuedHook q : batch) {
            hooks.add(q.hook);
        }
        long t0 = clock.nanoTime();
        List<CommitResult> results;
        try {
            results = committer.commit(Collections.unmodifiableList(hooks));
            if (results.size() != hooks.size()) {
                throw new IllegalStateException("committer answered " + results.size() + " results for " + hooks.size() + " hooks");
            }
        } catch (RuntimeException e) {
            failureWarnings.warn("group commit of " + hooks.size() + " hooks failed; answering store_unavailable: " + e, null);
            results = Collections.nCopies(hooks.size(), CommitResult.STORE_UNAVAILABLE);
        } // an Error goes on to writeLoop, which answers the batch and ends the writer
        commitTime.record(clock.nanoTime() - t0, TimeUnit.NANOSECONDS);
        batchSize.record(hooks.size());
        for (int i = 0; i < batch.size(); i++) {
            answer(batch.get(i), results.get(i));
        }
    }

    /** Deadline thread: refuses every hook still queued past its deadline. Package-private so tests can drive it. */
    void expireOverdue() {
        List<QueuedHook> overdue = new ArrayList<>();
        long now = clock.nanoTime();
        for (Partition p : partitions) {
            p.takeOverdue(now, overdue);
        }
        answerAll(overdue, CommitResult.OVERLOAD);
    }

    private void answerAll(List<QueuedHook> hooks, CommitResult result) {
        for (QueuedHook q : hooks) {
            answer(q, result);
        }
    }

    /** Answers the hooks of {@code hooks} not answered yet (only their writer answers them, so isDone is exact). */
    private void answerUnanswered(List<QueuedHook> hooks, CommitResult result) {
        for (QueuedHook q : hooks) {
            if (!q.future.isDone()) {
                answer(q, result);
            }
        }
    }

    private void answer(QueuedHook q, CommitResult result) {
        reserved.release(q.bytes);
        q.future.complete(result);
    }
}

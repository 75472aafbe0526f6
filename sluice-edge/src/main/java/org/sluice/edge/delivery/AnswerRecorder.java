package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.threads.Threads;

/**
 * Records what became of each attempt in the {@link DeliveryLedger}: a retry (the row due
 * again later), dead, or delivered, as {@link RetryPolicy#decide} judged the answer
 * ({@link #judge}, on the thread that completed the attempt).
 *
 * <p>Judged answers are queued ({@link #queue}). While the driver runs, its next pass takes
 * them ({@link #takeForPass}) and writes them in its one ledger write ({@link #recordPass}),
 * so that an attempt's slot is held until the write that records its outcome. With no pass
 * to come (a test pumping by hand, or closing), the answer executor ({@code
 * sluice-delivery-N}, 2 threads) writes them instead ({@link #recordQueued}), so that a
 * transport's thread never waits for a ledger write.
 *
 * <p>After {@link #stopRecording} nothing more is written: the rows stay pending in the ledger and
 * come due again.
 */
final class AnswerRecorder {

    private static final Logger LOG = LoggerFactory.getLogger(AnswerRecorder.class);

    /** Answers recorded in one ledger write at most. */
    static final int RECORD_BATCH = 256;

    /** An answer judged and waiting to be written to the ledger. */
    record Answer(Outlet outlet, DeliveryRow row, long seq, long writes, StoredHook hook, Decision decision,
                  Integer status, String error, long nowMs) {
    }

    private final DeliveryLedger ledger;
    private final RandomGenerator random;
    /** Whether a driver's pass will come for a queued answer (the driver runs and is not stopping). */
    private final BooleanSupplier passesComing;
    /** Wakes the driver (see {@link Dispatcher#wake()}). */
    private final Runnable wake;
    private final ExecutorService executor;
    /**
     * Answers judged and waiting to be written. Drained by the driver's pass while it runs
     * ({@link #takeForPass}); otherwise by one answer-executor thread at a time, or by the
     * closing thread ({@link #recordQueued}).
     */
    private final ConcurrentLinkedQueue<Answer> toRecord = new ConcurrentLinkedQueue<>();
    /** Size of {@link #toRecord} (its own size() walks the queue). */
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    /** Held (read) while an answer is recorded off the driver; close takes it (write) to stop recording. */
    private final ReentrantReadWriteLock recording = new ReentrantReadWriteLock();
    @GuardedBy("recording")
    private boolean closed;

    AnswerRecorder(DeliveryLedger ledger, RandomGenerator random, BooleanSupplier passesComing, Runnable wake) {
        this.ledger = ledger;
        this.random = random;
        this.passesComing = passesComing;
        this.wake = wake;
        this.executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                Threads.numbered("sluice-delivery-", 1));
    }

    /** What becomes of a delivery after {@code attempt} answered {@code result}; any thread. */
    Decision judge(RetryPolicy policy, int attempt, AttemptResult result, long ageMillis) {
        synchronized (random) { // the generator need not be thread-safe
            return policy.decide(attempt, result, ageMillis, random);
        }
    }

    /**
     * On the thread that completed the attempt: queues its judged answer, and wakes the
     * driver, whose next pass records it; with no pass to come, has the answer executor
     * record it.
     */
    void queue(Answer answer) {
        queued.incrementAndGet();
        toRecord.add(answer);
        if (passesComing.getAsBoolean()) {
            wake.run(); // the next pass records it
        } else {
            recordOffThisThread(); // no pass will come for it (a test pumping by hand, or closing)
        }
    }

    /** Answers queued and not yet taken. */
    int queued() {
        return queued.get();
    }

    /** For a pass: up to {@value #RECORD_BATCH} queued answers, which the pass records in its write. */
    List<Answer> takeForPass() {
        List<Answer> taken = new ArrayList<>();
        for (Answer a; taken.size() < RECORD_BATCH && (a = toRecord.poll()) != null; ) {
            queued.decrementAndGet();
            taken.add(a);
        }
        return taken;
    }

    /**
     * The pass's one ledger write: the outcomes of {@code answered}, so that an attempt's
     * slot is counted until the write that records its outcome (the pass frees the slots).
     * Returns false when the write failed (then nothing applied; the answers' rows stay
     * pending, due again at once, and the pass sends nothing: a store that fails its writes
     * would only have its attempts sent again), true when it succeeded or there was nothing
     * to write.
     */
    boolean recordPass(List<Answer> answered) {
        if (answered.isEmpty()) {
            return true;
        }
        boolean[] applied = null;
        try {
            applied = write(answered);
        } catch (RuntimeException e) {
            LOG.warn("recording {} answers failed (the deliveries stay pending): {}", answered.size(), e.toString());
        } finally {
            for (int i = 0; i < answered.size(); i++) {
                Answer a = answered.get(i);
                a.outlet().releaseAnswered(a, applied != null && applied[i]);
            }
        }
        return applied != null;
    }

    /**
     * Writes the queued answers with no pass: on the answer executor, on the closing thread
     * ({@link Dispatcher#close()}), or inline on a transport's thread once the executor is
     * shut down. Up to {@value #RECORD_BATCH} per ledger write, on the calling thread
     * unless another one is already at it (that one then takes them
     * too: it looks at the queue again after letting go). A ledger write waits for the
     * store's fsync in progress, so answers that arrive during one write share the next,
     * and the driver is woken once per write rather than once per answer.
     */
    void recordQueued() {
        while (!toRecord.isEmpty() && draining.compareAndSet(false, true)) {
            try {
                recordOffDriver(takeForPass());
            } finally {
                draining.set(false);
            }
        }
    }

    /**
     * Stops recording: waits for a write off the driver in progress, and after it nothing
     * is written. Answers that still come in are dropped (their rows stay pending).
     */
    void stopRecording() {
        recording.writeLock().lock();
        try {
            closed = true;
        } finally {
            recording.writeLock().unlock();
        }
    }

    /** Stops the answer executor (waits up to 5 s); after it, answers are handled on the thread that queues them. */
    void shutdown() {
        Threads.stop(executor, 5);
    }

    /**
     * Records the queued answers on the answer executor: the caller may be a transport's
     * event loop, which must not wait for a ledger write. Inline only when the executor
     * has been shut down (the dispatcher is closing).
     */
    private void recordOffThisThread() {
        try {
            executor.execute(this::recordQueued);
        } catch (RejectedExecutionException e) {
            recordQueued();
        }
    }

    /** Writes {@code batch} with no pass: frees the answers' slots itself and wakes the driver after. */
    private void recordOffDriver(List<Answer> batch) {
        if (batch.isEmpty()) {
            return;
        }
        boolean[] applied = null;
        recording.readLock().lock();
        try {
            if (closed) {
                return; // the store may be closing; the rows stay pending and come due again
            }
            applied = write(batch);
        } catch (RuntimeException e) {
            LOG.warn("recording {} answers (hook {} from destination {} first) failed (the deliveries stay pending): {}",
                    batch.size(), batch.get(0).row().hookId(), batch.get(0).outlet().name, e.toString());
        } finally {
            recording.readLock().unlock();
            for (int i = 0; i < batch.size(); i++) {
                Answer a = batch.get(i);
                a.outlet().inFlight.decrementAndGet();
                a.outlet().releaseAnswered(a, applied != null && applied[i]);
            }
            wake.run();
        }
    }

    /** One ledger write of {@code batch}'s transitions; tells each outlet of the ones applied. */
    private boolean[] write(List<Answer> batch) {
        List<DeliveryLedger.Transition> transitions = new ArrayList<>(batch.size());
        for (Answer a : batch) {
            transitions.add(transition(a));
        }
        boolean[] applied = ledger.apply(transitions);
        for (int i = 0; i < batch.size(); i++) {
            if (applied[i]) {
                batch.get(i).outlet().recorded(batch.get(i));
            }
        }
        return applied;
    }

    /**
     * The transition that records {@code a}; for a row read with the ledger's write count
     * (not a fifo head), marked as seen exactly: the row is held from its read to this
     * record, so no transition of this dispatcher can have changed it meanwhile.
     */
    private static DeliveryLedger.Transition transition(Answer a) {
        DeliveryLedger.Transition t;
        if (a.decision() instanceof Decision.Retry r) {
            t = DeliveryLedger.Transition.attempt(a.row(), a.status(), a.error(), a.nowMs() + r.delayMillis(), a.nowMs());
        } else if (a.decision() instanceof Decision.Dead dead) {
            t = DeliveryLedger.Transition.dead(a.row(), dead.reason().code(), true, a.status(), a.error(), a.nowMs());
        } else {
            t = DeliveryLedger.Transition.delivered(a.row(), a.status(), a.nowMs());
        }
        return a.seq() >= 0 && a.writes() >= 0 ? t.seenAt(a.seq(), a.writes()) : t;
    }
}

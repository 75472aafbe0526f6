package org.sluice.edge.intake;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.sluice.core.Clock;

/**
 * One partition's queue, shared by submitters (enqueue), its writer thread (take a batch)
 * and the deadline reaper (take overdue hooks).
 *
 * <p>A hook is in exactly one place: in {@code queue}, or in the hands of whichever of the
 * writer or the reaper removed it under {@code lock}. The writer removes it to start its
 * batch (from then on it is always waited out); the reaper removes it only while it is
 * still queued, so a hook is refused for its deadline only if its batch never started.
 * The lock guards the deque only: no I/O and no completion callback runs under it.
 * The queue holds at most {@code intake.max_queue} hooks, because every enqueue follows a
 * successful global reservation.
 */
final class Partition {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    @GuardedBy("lock")
    private final ArrayDeque<QueuedHook> queue = new ArrayDeque<>();
    private final int maxBatch;
    private final long maxDelayNanos;
    private final long deadlineNanos;
    private final Clock clock;
    /** Once true, nothing more is enqueued and the writer leaves when the queue is empty. */
    @GuardedBy("lock")
    private boolean closing;

    /** A partition batching by {@code settings}' {@code max_batch}, {@code max_delay_ms} and {@code commit_deadline_ms}. */
    Partition(IntakeSettings settings, Clock clock) {
        this.maxBatch = settings.maxBatch();
        this.maxDelayNanos = TimeUnit.MILLISECONDS.toNanos(settings.maxDelayMs());
        this.deadlineNanos = TimeUnit.MILLISECONDS.toNanos(settings.commitDeadlineMs());
        this.clock = clock;
    }

    /** Adds a hook; false (nothing added) once the partition is closing. */
    boolean enqueue(QueuedHook hook) {
        lock.lock();
        try {
            if (closing) {
                return false;
            }
            queue.addLast(hook);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until there is work, then moves up to {@code maxBatch} hooks into
     * {@code started} (their batch has now started) and any already past their deadline
     * into {@code overdue}. Returns false, taking nothing, when the partition is closing
     * and empty: the writer's cue to leave.
     */
    boolean takeBatch(List<QueuedHook> started, List<QueuedHook> overdue) {
        lock.lock();
        try {
            while (queue.isEmpty()) {
                if (closing) {
                    return false;
                }
                notEmpty.awaitUninterruptibly();
            }
            if (maxDelayNanos > 0) {
                // a real-time wait for the batch to fill; deadlines below use the injected clock
                long waitUntil = System.nanoTime() + maxDelayNanos;
                while (queue.size() < maxBatch && !closing) {
                    long left = waitUntil - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        notEmpty.awaitNanos(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            long now = clock.nanoTime();
            QueuedHook h;
            while (started.size() < maxBatch && (h = queue.pollFirst()) != null) {
                (isOverdue(h, now) ? overdue : started).add(h);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes the queued hooks that are past their deadline at {@code now} into {@code overdue}. */
    void takeOverdue(long now, List<QueuedHook> overdue) {
        lock.lock();
        try {
            // every hook has the same deadline, so the queue is in deadline order: stop at the first one in time
            QueuedHook h;
            while ((h = queue.peekFirst()) != null && isOverdue(h, now)) {
                overdue.add(queue.pollFirst());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Removes every queued hook into {@code out} (for close, when no writer will take them). */
    void takeAll(List<QueuedHook> out) {
        lock.lock();
        try {
            out.addAll(queue);
            queue.clear();
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closing = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private boolean isOverdue(QueuedHook h, long now) {
        return now - h.enqueuedNanos > deadlineNanos;
    }
}

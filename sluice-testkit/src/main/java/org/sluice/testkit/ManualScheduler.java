package org.sluice.testkit;

import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link ScheduledExecutorService} on a {@link ManualClock}: {@code schedule} only
 * queues a task at the clock's reading plus its delay, and {@link #runUntilIdle()} runs
 * the queue in order of due time, moving the clock to each task's time first. So an
 * asynchronous wait runs on the calling thread, in order, without sleeping.
 * One-shot tasks ({@code schedule}, {@code execute}, {@code submit}) are supported;
 * periodic ones are not (no test of the limiters needs them). A task that throws
 * completes its future exceptionally.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final ManualClock clock;
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long sequence;
    private boolean shutdown;

    public ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    /** Runs every task, including those the tasks schedule, moving the clock to each one's time; returns how many ran. */
    public int runUntilIdle() {
        int ran = 0;
        for (;;) {
            Task<?> next;
            synchronized (this) {
                next = queue.poll();
            }
            if (next == null) {
                return ran;
            }
            long behind = next.due - clock.nanoTime();
            if (behind > 0) {
                clock.advanceNanos(behind);
            }
            if (!next.isCancelled()) {
                next.run();
                ran++;
            }
        }
    }

    /** Tasks queued now. */
    public synchronized int queued() {
        return queue.size();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return schedule(Executors.callable(command), delay, unit);
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException("manual scheduler is shut down");
        }
        Task<V> task = new Task<>(callable, clock.nanoTime() + Math.max(0L, unit.toNanos(delay)), sequence++);
        queue.add(task);
        return task;
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0L, TimeUnit.NANOSECONDS);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = queue.stream().<Runnable>map(t -> t::run).toList();
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    /** A queued task: due at a reading of the clock, ties broken by the order of scheduling. */
    private final class Task<V> implements ScheduledFuture<V> {
        final long due;
        final long seq;
        private final Callable<V> callable;
        private final CompletableFuture<V> result = new CompletableFuture<>();

        Task(Callable<V> callable, long due, long seq) {
            this.callable = callable;
            this.due = due;
            this.seq = seq;
        }

        void run() {
            if (result.isDone()) {
                return;
            }
            try {
                result.complete(callable.call());
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - clock.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Task<?> o = (Task<?>) other;
            return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return result.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return result.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return result.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return result.get(timeout, unit);
        }
    }
}

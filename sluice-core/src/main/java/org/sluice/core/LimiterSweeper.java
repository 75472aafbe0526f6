package org.sluice.core;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread, shared by every {@link RateLimiter}, that calls {@link
 * RateLimiter#sweepTick()} on a fixed delay. Each task holds its limiter through a
 * weak reference and cancels itself once the limiter has been collected, so
 * scheduling a sweep never keeps a limiter alive.
 */
final class LimiterSweeper {

    private static final ScheduledThreadPoolExecutor EXECUTOR = newExecutor();

    private LimiterSweeper() {
    }

    private static ScheduledThreadPoolExecutor newExecutor() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-limiter-sweeper");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    static void schedule(RateLimiter limiter, Duration interval) {
        long nanos = interval.toNanos();
        Task task = new Task(limiter);
        task.future = EXECUTOR.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private static final class Task implements Runnable {
        private final WeakReference<RateLimiter> limiter;
        volatile ScheduledFuture<?> future;

        Task(RateLimiter limiter) {
            this.limiter = new WeakReference<>(limiter);
        }

        @Override
        public void run() {
            RateLimiter l = limiter.get();
            if (l == null) {
                ScheduledFuture<?> f = future;
                if (f != null) {
                    f.cancel(false);
                }
                return;
            }
            try {
                l.sweepTick();
            } catch (RuntimeException e) {
                // A failing sweep must not cancel the schedule; the next tick tries again.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }
}

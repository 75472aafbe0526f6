package org.sluice.core;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The one daemon thread, shared by every {@link RateLimiter} and {@link KeyedLimiter},
 * that calls their {@code sweepTick()} on a fixed delay. Each task holds its limiter through a
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
        schedule(limiter, RateLimiter::sweepTick, interval);
    }

    static <T> void schedule(T limiter, ToIntFunction<T> tick, Duration interval) {
        long nanos = interval.toNanos();
        Task<T> task = new Task<>(limiter, tick);
        task.future = EXECUTOR.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private static final class Task<T> implements Runnable {
        private final WeakReference<T> limiter;
        private final ToIntFunction<T> tick;
        volatile ScheduledFuture<?> future;

        Task(T limiter, ToIntFunction<T> tick) {
            this.limiter = new WeakReference<>(limiter);
            this.tick = tick;
        }

        @Override
        public void run() {
            T l = limiter.get();
            if (l == null) {
                ScheduledFuture<?> f = future;
                if (f != null) {
                    f.cancel(false);
                }
                return;
            }
            try {
                int unused = tick.applyAsInt(l); // rows swept: the limiter counts them itself
            } catch (RuntimeException e) {
                // A failing sweep must not cancel the schedule; the next tick tries again.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }
}

package org.sluice.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The waiting shared by {@link Limiter} and {@link KeyedLimiter}: the blocking acquire's
 * loop and the asynchronous acquire's completion. Neither holds a lock while it waits.
 */
final class Waits {

    /** One charge attempt: charges when its wait is at most {@code maxWait}, answers the wait. */
    @FunctionalInterface
    interface Charge {
        long charge(long maxWait);
    }

    private Waits() {
    }

    /** {@code timeout} in nanoseconds, saturating at {@link Long#MAX_VALUE}. */
    static long budget(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Tells {@code listener} what one charge attempt with {@code maxWait} decided, and
     * answers its wait: admitted (and, for a reservation that must wait, waited) when the
     * wait was at most {@code maxWait}, else refused.
     */
    static long report(LimiterListener listener, long permits, long maxWait, long wait) {
        if (wait <= maxWait) {
            listener.admitted(permits);
            if (wait > 0L) {
                listener.waited(wait);
            }
        } else {
            listener.refused(permits, wait);
        }
        return wait;
    }

    /**
     * Tries; while refused with a wait that fits in what is left of {@code budget}
     * (measured on {@code clock}), sleeps that wait and tries again. True once charged,
     * false (nothing charged) as soon as a wait does not fit.
     */
    static boolean acquire(Charge attempt, long budget, Clock clock, Sleeper sleeper, LimiterListener listener)
            throws InterruptedException {
        long start = clock.nanoTime();
        for (;;) {
            long wait = attempt.charge(0L);
            if (wait == 0L) {
                return true;
            }
            long left = budget - (clock.nanoTime() - start);
            if (wait > left) {
                return false;
            }
            listener.waited(wait);
            sleeper.sleepNanos(wait);
        }
    }

    /**
     * Reserves when the wait fits in {@code budget}: a stage completed with true on {@code
     * scheduler} once the wait has passed (at once when it is 0), or already completed
     * with false, nothing charged, when it does not fit.
     */
    static CompletionStage<Boolean> acquireAsync(Charge attempt, long budget, ScheduledExecutorService scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        long wait = attempt.charge(budget);
        if (wait > budget) {
            return CompletableFuture.completedFuture(false);
        }
        if (wait == 0L) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        try {
            ScheduledFuture<?> unused = scheduler.schedule(() -> done.complete(true), wait, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(e); // the permits stay taken: the scheduler refused, not the limiter
        }
        return done;
    }
}

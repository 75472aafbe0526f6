package org.sluice.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The waiting shared by {@link Limiter}, {@link KeyedLimiter} and every {@link KeyedLimit}:
 * the blocking acquire's loop, the asynchronous acquire's completion after a reservation,
 * and, for a scope that cannot reserve, the asynchronous acquire that asks again on the
 * scheduler. None holds a lock while it waits.
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

    /**
     * Tries at once (on the calling thread, so a bad argument throws there); while refused
     * with a wait that fits in what is left of {@code budget} (measured on {@code clock}),
     * asks again on {@code scheduler} once that wait has passed. The stage completes with
     * true once {@code attempt} answers 0 (charged), with false as soon as a wait does not
     * fit. Nothing is taken before the call that completes it: cancelling the stage stops
     * the asking, and a later attempt's exception completes it exceptionally.
     */
    static CompletionStage<Boolean> pollAsync(LongSupplier attempt, long budget, Clock clock,
            ScheduledExecutorService scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        Poll poll = new Poll(attempt, budget, clock, scheduler);
        poll.step(attempt.getAsLong());
        return poll.done;
    }

    /** One asynchronous acquire over a scope's probe: its deadline and its stage. */
    private static final class Poll implements Runnable {
        final CompletableFuture<Boolean> done = new CompletableFuture<>();
        private final LongSupplier attempt;
        private final long budget;
        private final Clock clock;
        private final ScheduledExecutorService scheduler;
        private final long start;

        Poll(LongSupplier attempt, long budget, Clock clock, ScheduledExecutorService scheduler) {
            this.attempt = attempt;
            this.budget = budget;
            this.clock = clock;
            this.scheduler = scheduler;
            this.start = clock.nanoTime();
        }

        @Override
        public void run() {
            if (done.isDone()) {
                return; // cancelled while it waited: take nothing
            }
            long wait;
            try {
                wait = attempt.getAsLong();
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
                return;
            }
            step(wait);
        }

        void step(long wait) {
            if (wait == 0L) {
                done.complete(true);
                return;
            }
            if (wait > budget - (clock.nanoTime() - start)) {
                done.complete(false);
                return;
            }
            try {
                ScheduledFuture<?> unused = scheduler.schedule(this, wait, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                done.completeExceptionally(e); // nothing taken: the scheduler refused, not the limiter
            }
        }
    }
}

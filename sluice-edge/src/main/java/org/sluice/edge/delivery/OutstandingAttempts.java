package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The attempts a dispatcher has out, over every destination, counted twice: until their
 * answer comes back ({@link #unanswered()}, which the driver reads to decide whether to
 * gather answers), and until their answer is recorded or given up on (what
 * {@link #awaitIdle} waits for, so that close and tests know when nothing is left).
 * Thread-safe: attempts start on the driver and committing threads, and end on the
 * transports' and answer threads.
 */
final class OutstandingAttempts {

    private final AtomicInteger unanswered = new AtomicInteger();
    private final Object idle = new Object();
    @GuardedBy("idle")
    private int outstanding;

    /** An attempt is about to be sent. */
    void started() {
        unanswered.incrementAndGet();
        synchronized (idle) {
            outstanding++;
        }
    }

    /** An attempt's answer (or its failure) came back. */
    void answered() {
        unanswered.decrementAndGet();
    }

    /** An attempt is fully handled: its answer recorded, or given up on. */
    void handled() {
        synchronized (idle) {
            outstanding--;
            idle.notifyAll();
        }
    }

    /** Attempts started and not yet answered. */
    int unanswered() {
        return unanswered.get();
    }

    /**
     * Waits until no attempt is out (each answered and recorded), at most {@code timeout}
     * of real time. Returns true when idle.
     */
    boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (outstanding > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(idle, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }
}

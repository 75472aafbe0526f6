package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.TreeSet;

/**
 * One outlet's due times (epoch ms) of the retries recorded and not yet come due: when the
 * driver wakes for them. At most {@code bound} are kept (the latest are dropped; a pass finds
 * those within {@value Dispatcher#MAX_PARK_MS} ms of their time). Written where answers are
 * recorded (the driver, or the answer executor when no driver runs), read by the driver.
 */
final class RetryTimes {

    private final int bound;
    @GuardedBy("this")
    private final TreeSet<Long> due = new TreeSet<>();

    RetryTimes(int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound must be at least 1, got " + bound);
        }
        this.bound = bound;
    }

    /** Remembers a retry due at {@code dueMs}; past the bound the latest time is forgotten. */
    synchronized void add(long dueMs) {
        due.add(dueMs);
        if (due.size() > bound) {
            due.pollLast();
        }
    }

    /** The earliest retry due after {@code nowMs}, or -1; forgets those due by then (the pass's scan saw them). */
    synchronized long nextAfter(long nowMs) {
        due.headSet(nowMs, true).clear();
        return due.isEmpty() ? -1 : due.first();
    }

    /** How many times are kept (at most the bound). */
    synchronized int size() {
        return due.size();
    }
}

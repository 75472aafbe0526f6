package org.sluice.edge.log;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * The edge's one rate-limited logger. A warning that repeats (a store failing every write, a flood of bad requests) is logged at
 * most once per interval, with the count of the ones suppressed since. Lock-free: one CAS
 * decides which thread logs.
 */
public final class Warnings {

    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong nextAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public Warnings(Logger log, long intervalNanos) {
        this.log = log;
        this.intervalNanos = intervalNanos;
    }

    public void warn(String message, Throwable cause) {
        long now = System.nanoTime();
        long next = nextAt.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAt.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long skipped = suppressed.getAndSet(0);
        if (skipped > 0) {
            log.warn("{} ({} similar warnings suppressed)", message, skipped, cause);
        } else {
            log.warn(message, cause);
        }
    }
}

package org.sluice.edge.intake;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/** Logs a repeated warning at most once per interval, saying how many were suppressed in between. */
final class WarnLimiter {

    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    WarnLimiter(Logger log, long intervalNanos) {
        this.log = log;
        this.intervalNanos = intervalNanos;
    }

    void warn(String format, Object... args) {
        long now = System.nanoTime();
        long allowed = nextAllowed.get();
        if ((allowed != Long.MIN_VALUE && now - allowed < 0) || !nextAllowed.compareAndSet(allowed, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long skipped = suppressed.getAndSet(0);
        log.warn(format + (skipped > 0 ? " (" + skipped + " similar warnings suppressed)" : ""), args);
    }
}

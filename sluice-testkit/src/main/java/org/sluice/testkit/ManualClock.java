package org.sluice.testkit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.core.Clock;

/** A clock that moves only when a test moves it. Thread-safe. */
public final class ManualClock implements Clock {

    private final AtomicLong nanos;

    public ManualClock() {
        this(0L);
    }

    public ManualClock(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    public ManualClock advance(Duration by) {
        return advanceNanos(by.toNanos());
    }

    public ManualClock advanceNanos(long by) {
        if (by < 0) {
            throw new IllegalArgumentException("a monotonic clock does not go back, got " + by);
        }
        nanos.addAndGet(by);
        return this;
    }
}

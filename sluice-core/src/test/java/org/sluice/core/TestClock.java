package org.sluice.core;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock moved only by the test. sluice-core's own tests use this instead of
 * {@code org.sluice.testkit.ManualClock}: the testkit depends on sluice-core, so a
 * test-scoped dependency back onto it would be a reactor cycle.
 */
final class TestClock implements Clock {

    private final AtomicLong nanos;

    TestClock(long startNanos) {
        nanos = new AtomicLong(startNanos);
    }

    TestClock() {
        this(0L);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    TestClock advanceNanos(long by) {
        if (by < 0) {
            throw new IllegalArgumentException("a monotonic clock does not go back, got " + by);
        }
        nanos.addAndGet(by);
        return this;
    }

    TestClock advanceMillis(long by) {
        return advanceNanos(by * 1_000_000L);
    }
}

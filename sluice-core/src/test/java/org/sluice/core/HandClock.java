package org.sluice.core;

import java.util.concurrent.atomic.AtomicLong;

/** A clock moved by hand, for core tests (sluice-testkit depends on core, so core cannot use it). */
final class HandClock implements Clock {

    private final AtomicLong nanos;

    HandClock(long start) {
        this.nanos = new AtomicLong(start);
    }

    HandClock() {
        this(0L);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    HandClock advanceNanos(long by) {
        nanos.addAndGet(by);
        return this;
    }

    HandClock advanceMillis(long by) {
        return advanceNanos(by * 1_000_000L);
    }
}

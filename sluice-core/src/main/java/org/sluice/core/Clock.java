package org.sluice.core;

/**
 * A monotonic source of time in nanoseconds. Limiters take one so that tests can drive
 * time by hand ({@code org.sluice.testkit.ManualClock}) instead of sleeping.
 *
 * <p>Only differences between two readings mean anything; the origin is arbitrary and
 * readings may be negative.
 */
@FunctionalInterface
public interface Clock {

    /** Monotonic time in nanoseconds. */
    long nanoTime();

    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}

enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}

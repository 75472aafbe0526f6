package org.sluice.core;

import java.util.concurrent.TimeUnit;

/**
 * How a blocking call ({@link Limiter#acquire(long, java.time.Duration)}) waits. The
 * limiter measures time on its {@link Clock} and asks the sleeper to pass that much of
 * it; a test with a manual clock passes a sleeper that advances the clock, so a blocking
 * call runs without sleeping.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Waits about {@code nanos} nanoseconds of the limiter's clock (more is harmless: the
     * limiter asks again; less only costs another turn).
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    void sleepNanos(long nanos) throws InterruptedException;

    /** Sleeps the calling thread ({@link TimeUnit#sleep}); interruptible. */
    static Sleeper system() {
        return TimeUnit.NANOSECONDS::sleep;
    }
}

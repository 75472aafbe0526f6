package org.sluice.core;

import java.util.concurrent.locks.LockSupport;

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

    /**
     * Parks the calling thread for {@code nanos} ({@link LockSupport#parkNanos(long)});
     * interruptible: an interrupt before or during the wait throws, clearing the
     * thread's interrupt status, as {@link Thread#sleep} does. Not {@code Thread.sleep}:
     * on Java 17 it waits in whole milliseconds, rounding a wait under one millisecond
     * up to one, so eight threads blocking on a limit of 100,000 a second took 17,000
     * a second ({@code BlockingAcquireBenchmark}; about 94,000 parked).
     */
    static Sleeper system() {
        return nanos -> {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            LockSupport.parkNanos(nanos); // may return early: the limiter then asks again
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        };
    }
}

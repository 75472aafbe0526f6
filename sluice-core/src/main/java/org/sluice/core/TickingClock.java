package org.sluice.core;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The coarse clock behind {@link Clock#ticking(Duration)}; see there for the error bound.
 *
 * <h2>Algorithm</h2>
 * One static volatile {@code long} ({@link #now}) holds the latest published reading.
 * One daemon thread, started by the first {@link #of} call, loops: park for the current
 * period, read {@link System#nanoTime()}, and store it if it is greater than the value
 * held. Every {@link TickingClock} instance returns that field; instances differ only in
 * the tick they were asked for.
 *
 * <h2>States and invariants</h2>
 * <ul>
 *   <li>{@link #now} is written by one thread only (the publisher), after its first
 *       value is set under the class lock before the publisher starts. Every value
 *       written is greater than the one it replaces, so readings never decrease.</li>
 *   <li>{@link #periodNanos} only ever decreases (the smallest tick asked for); it is
 *       changed under the class lock, and the publisher is unparked so that a finer
 *       tick takes effect at once instead of after one old period.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * Both fields are volatile: a reader sees some value the publisher stored (or the
 * initial one), and every later read on any thread sees that value or a newer one.
 * Nothing else is shared.
 */
final class TickingClock implements Clock {

    static final long MIN_TICK_NANOS = 100_000L;
    static final long MAX_TICK_NANOS = 1_000_000_000L;
    static final String THREAD_NAME = "sluice-ticking-clock";

    private static final Object LOCK = new Object();
    /** The latest published {@code System.nanoTime()} reading. */
    private static volatile long now;
    /** The publisher's period: the smallest tick asked for; 0 before the first clock. */
    private static volatile long periodNanos;
    /** The publisher, once started. Guarded by {@link #LOCK}. */
    private static Thread publisher;

    private final long tickNanos;

    private TickingClock(long tickNanos) {
        this.tickNanos = tickNanos;
    }

    static TickingClock of(Duration tick) {
        if (tick == null) {
            throw new IllegalArgumentException("tick must be a duration from 100us to 1s, got null");
        }
        long nanos = tick.compareTo(Duration.ofSeconds(2)) > 0 ? Long.MAX_VALUE : tick.toNanos();
        if (nanos < MIN_TICK_NANOS || nanos > MAX_TICK_NANOS) {
            throw new IllegalArgumentException("tick must be a duration from 100us to 1s, got " + tick);
        }
        synchronized (LOCK) {
            if (publisher == null) {
                now = System.nanoTime();
                periodNanos = nanos;
                Thread t = new Thread(TickingClock::publish, THREAD_NAME);
                t.setDaemon(true);
                t.start();
                publisher = t;
            } else if (nanos < periodNanos) {
                periodNanos = nanos;
                LockSupport.unpark(publisher);
            }
        }
        return new TickingClock(nanos);
    }

    private static void publish() {
        for (;;) {
            LockSupport.parkNanos(periodNanos);
            Thread.interrupted(); // an interrupt (nobody's business here) would make every park return at once
            long t = System.nanoTime();
            if (t - now > 0) {
                now = t;
            }
        }
    }

    @Override
    public long nanoTime() {
        return now;
    }

    /** The tick this clock was asked for (the publisher may run finer). */
    Duration tick() {
        return Duration.ofNanos(tickNanos);
    }

    /** The publisher's current period, in nanoseconds (tests). */
    static long periodNanos() {
        return periodNanos;
    }

    @Override
    public String toString() {
        return "Clock.ticking(" + tick() + ")";
    }
}

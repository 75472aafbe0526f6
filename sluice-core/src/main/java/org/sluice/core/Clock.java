package org.sluice.core;

import java.time.Duration;

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

    /**
     * An opt-in coarse clock: {@code nanoTime()} reads a value that one shared daemon
     * thread refreshes from {@link System#nanoTime()} every {@code tick}, so a reading
     * costs one volatile load instead of a call into the operating system's clock. It is
     * never the default: a limiter reads {@link #system()} unless given this clock.
     *
     * <p><b>What it costs in accuracy.</b> A reading is a true {@code System.nanoTime()}
     * value taken at most {@code L} ago, where {@code L} (the lag) is one tick plus however
     * late the operating system wakes the publishing thread (nothing on a quiet machine;
     * on an overloaded one, milliseconds). Readings never decrease and are the same for
     * every thread at a given moment. A limiter behaves exactly on the clock's readings,
     * so in real time:
     * <ul>
     *   <li><b>Waits</b> can be short by at most {@code L}: a caller refused with a wait
     *       {@code w} at real time {@code t} read {@code r <= t}; when it retries at
     *       {@code t + w} the clock reads at least {@code t + w - L >= r + w - L}, so what
     *       remains of the wait is at most {@code L}.</li>
     *   <li><b>Admissions</b> over a real interval of length {@code d} can exceed the
     *       exact bound by at most {@code rate x L}: the readings taken in that interval
     *       lie in a clock interval of length at most {@code d + L}, and the exact limiter
     *       admits at most {@code burst + rate x (d + L)} over readings spanning
     *       {@code d + L}. With {@code tick = 1 ms} a limit of 1000 per second may admit
     *       one extra request over any interval; 100 per second, 0.1 (so none, or one
     *       when the interval happens to straddle a tick).</li>
     *   <li>Over long runs nothing drifts: the readings follow {@code System.nanoTime()}
     *       within {@code L}.</li>
     * </ul>
     * Processes sharing a {@code sluice-shm} arena may each use a ticking clock: their
     * readings then differ by at most the largest lag, which the arena's slack for
     * writers ahead of readers absorbs.
     *
     * <p><b>The thread.</b> Every ticking clock in the JVM reads the same published
     * value, refreshed by one daemon thread ({@code sluice-ticking-clock}) started on the
     * first call and running for the life of the JVM at the smallest tick asked for so
     * far (so a clock asked for with a coarser tick is only ever more accurate than its
     * tick says). It wakes once per tick and does nothing else.
     *
     * @param tick the time between refreshes, from 100 us to 1 s
     * @throws IllegalArgumentException when {@code tick} is null or outside that range
     */
    static Clock ticking(Duration tick) {
        return TickingClock.of(tick);
    }
}

enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}

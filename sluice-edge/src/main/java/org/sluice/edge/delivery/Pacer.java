package org.sluice.edge.delivery;

import io.micrometer.core.instrument.MeterRegistry;
import org.sluice.core.Clock;

/**
 * A paced destination's permits, as its {@link Outlet} asks for them: a pass announces how
 * many attempts it could start ({@link #beginPass}), takes one permit per attempt
 * ({@link #tryTake}) and gives back nothing at its end ({@link #endPass}: what it did not
 * take is dropped). Three kinds: {@link LocalPacer} (this node's own bucket at a fixed
 * {@code rate}: the {@code rocksdb} kind, or the {@code kafka} kind without the fleet's
 * Redis), {@link AdaptivePacer} (the same at an {@code adaptive} pace) and
 * {@link FleetPacer} (the fleet's bucket, leased once per pass, at either).
 *
 * <p>Threads: {@link #beginPass}, {@link #tryTake} and {@link #endPass} are the pass's
 * (under the dispatcher's pump lock); {@link #tryTakeAtCommit} is a committing thread's,
 * under the store's commit lock, and never calls out of the process; {@link #heard} is the
 * thread's that completed an attempt; {@link #perSecond} any thread's.
 */
sealed interface Pacer permits LocalPacer, AdaptivePacer, FleetPacer {

    /**
     * The pacer of {@code d}: null when it is unpaced; leasing from {@code fleet} when that
     * is not null (the {@code kafka} kind with the fleet's Redis), else this node's own.
     */
    static Pacer of(Destination d, FleetPacing fleet, Clock clock, MeterRegistry registry) {
        if (d.adaptive().isPresent()) {
            AdaptivePace pace = new AdaptivePace(d.adaptive().get(), d.retry().maxMs(), clock);
            return fleet != null ? new FleetPacer(d.name(), pace, fleet, clock, registry)
                    : new AdaptivePacer(pace, clock, 1);
        }
        return d.rate().<Pacer>map(l -> fleet != null ? new FleetPacer(d.name(), l, fleet, clock, registry)
                : new LocalPacer(d.name(), l, clock)).orElse(null);
    }

    /** Before a pass's picks: it will ask {@link #tryTake} at most {@code wanted} (at least 1) times. */
    void beginPass(int wanted);

    /** 0: one attempt may start now; else the nanoseconds until one may. */
    long tryTake();

    /** After the pass's picks. */
    void endPass();

    /** A first attempt at its commit: 0 when it may start now, else it waits for a pass. */
    long tryTakeAtCommit();

    /** The pace now, attempts per second: the fixed {@code rate}, or where an adaptive pace stands. */
    double perSecond();

    /**
     * An attempt started at {@code startNanos} was answered with {@code result} at
     * {@code endNanos} (readings of the dispatcher's clock). Only an adaptive pace listens.
     */
    default void heard(AttemptResult result, long startNanos, long endNanos) {
    }
}

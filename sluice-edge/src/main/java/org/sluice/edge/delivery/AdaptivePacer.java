package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.sluice.core.Clock;
import org.sluice.core.Gcra;

/**
 * This node's own bucket for a destination paced {@code adaptive}: one GCRA bucket
 * ({@code sluice-core}'s {@link Gcra} arithmetic, the same every limiter uses) charged at
 * the pace its {@link AdaptivePace} has now, divided by {@code divisor} (1, or the live
 * nodes when it is a {@link FleetPacer}'s fallback). The bucket's one number, its
 * theoretical arrival time, carries over when the pace changes, so a change neither
 * refills nor empties it. Its burst is a tenth of a second's attempts at the pace
 * ({@link AdaptivePace#burst}).
 *
 * <p>Refuses every attempt while a {@code Retry-After} hold runs, and tells the pace when
 * it holds an attempt back ({@link AdaptivePace#pressed}).
 *
 * <p>Threads: the pass ({@link #tryTake}) and a committing thread ({@link #tryTakeAtCommit})
 * may charge at once: the bucket is guarded by this object's monitor, held for a few
 * integer steps.
 */
final class AdaptivePacer implements Pacer {

    private static final long NANOS_PER_SECOND_MILLI = 1_000_000_000L * AdaptiveRate.MILLI;

    private final AdaptivePace pace;
    private final Clock clock;
    private final long divisor;
    /** The bucket's theoretical arrival time; at or before now: full. */
    @GuardedBy("this")
    private long tat;

    AdaptivePacer(AdaptivePace pace, Clock clock, int divisor) {
        this.pace = pace;
        this.clock = clock;
        this.divisor = Math.max(1, divisor);
        this.tat = clock.nanoTime();
    }

    @Override
    public void beginPass(int wanted) {
    }

    @Override
    public long tryTake() {
        return take();
    }

    @Override
    public void endPass() {
    }

    @Override
    public long tryTakeAtCommit() {
        return take();
    }

    @Override
    public double perSecond() {
        return pace.perSecond() / divisor;
    }

    @Override
    public void heard(AttemptResult result, long startNanos, long endNanos) {
        pace.heard(result, startNanos, endNanos);
    }

    private synchronized long take() {
        long now = clock.nanoTime();
        long hold = pace.holdNanos(now);
        if (hold > 0) {
            return hold;
        }
        long paceMilli = Math.max(1, pace.paceMilli() / divisor);
        long interval = Math.max(1, NANOS_PER_SECOND_MILLI / paceMilli);
        long tolerance = Gcra.toleranceNanos(interval, AdaptivePace.burst(paceMilli));
        long wait = Gcra.waitNanos(tat, now, interval, tolerance);
        if (wait > 0) {
            pace.pressed();
            return wait;
        }
        tat = Gcra.admittedTat(tat, now, interval, tolerance);
        return 0;
    }
}

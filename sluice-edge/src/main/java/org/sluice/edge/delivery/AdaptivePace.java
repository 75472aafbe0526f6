package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.TimeUnit;
import org.sluice.core.Clock;
import org.sluice.core.Limit;

/**
 * The pace of a destination paced {@code adaptive}: additive increase, multiplicative
 * decrease (AIMD), in thousandths of an attempt per second, on the injected {@link Clock}.
 *
 * <pre>
 *   start      pace = min
 *   rise       pace = min(max, pace + max / 100)        at most once per 100 ms
 *   fall       pace = max(min, pace x 7 / 10)           at most once per round trip
 *   hold       no attempt starts, and the pace does not rise, until a Retry-After has passed
 * </pre>
 *
 * <p><b>What each answer says</b> ({@link #heard}): a 2xx (or a broker's acknowledgement)
 * whose latency holds is a success; a 429 or a 503 is congestion, and so is a 2xx whose
 * latency rose: the recent latency more than {@value #LATENCY_FACTOR} times the usual one
 * and more than {@code LATENCY_SLACK} (20 ms) above it. Both are exponentially weighted
 * means of the latencies of every 2xx: the recent one weighs the newest answer 1/8, the
 * usual one 1/64. So one slow answer (a pause of the sender's own machine, a receiver's
 * hiccup) cuts nothing unless it is more than about fifteen times the usual latency, while a
 * run of answers three and a half times slower cuts after eight of them. Anything else (other
 * statuses, no answer, a transformation that failed) says nothing about the pace: the
 * breaker and the retry policy handle it.
 *
 * <p><b>Rise.</b> A success rises the pace by a hundredth of {@code max} when all of these
 * hold: the attempt started after the last change of the pace (it was sent at this pace),
 * at least {@code INTERVAL} (100 ms) has passed since that change, the pacer held an
 * attempt back since then ({@link #pressed}: a destination sending less than its pace
 * learns nothing from it, so an idle destination does not climb to {@code max} untried),
 * and no {@code Retry-After} hold is running. From {@code min} to {@code max} therefore
 * takes at least 100 intervals: 10 s of good answers.
 *
 * <p><b>Fall.</b> Congestion cuts the pace to 7/10 (at least {@code min}) when the attempt
 * started after the last cut; the answers of attempts that were out at the cut (sent at
 * the pace that caused it) cut nothing more, so a burst of 429s from one round trip is one
 * cut, not a collapse to {@code min}. A 429 or 503 with {@code Retry-After} also holds the
 * destination for that long, capped at the destination's {@code retry.max_ms} (the cap
 * the row's own delay has), and never shortens a running hold.
 *
 * <p><b>State and threads.</b> Answers come on the transports' threads, so {@link #heard}
 * is {@code synchronized} (a few integer steps, no I/O, no call out). The pace and the
 * hold's end are volatile, read without the lock by the pacer (the dispatcher's pass, a
 * committing thread), the gauge and the admin API; {@link #pressed} is one volatile write.
 * The state is a fixed handful of longs: nothing grows with traffic.
 */
final class AdaptivePace {

    /** The shortest time between two rises. */
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A rise is {@code max / STEPS}. */
    static final long STEPS = 100;
    /** A fall multiplies by {@code FALL_NUMERATOR / FALL_DENOMINATOR}. */
    static final long FALL_NUMERATOR = 7;
    static final long FALL_DENOMINATOR = 10;
    /** A recent latency above this many usual ones has risen (and above the slack). */
    static final long LATENCY_FACTOR = 2;
    /** ... and more than this above the usual one: a jitter of milliseconds on a fast receiver is not congestion. */
    static final long LATENCY_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The recent latency's newest sample weighs {@code 1 / 2^RECENT_SHIFT}. */
    static final int RECENT_SHIFT = 3;
    /** The usual latency's newest sample weighs {@code 1 / 2^USUAL_SHIFT}. */
    static final int USUAL_SHIFT = 6;
    /** The longest hold, whatever {@code retry.max_ms} is. */
    static final long MAX_HOLD_NANOS = TimeUnit.DAYS.toNanos(1);

    private final AdaptiveRate range;
    private final long stepMilli;
    private final long maxHoldNanos;

    /** The pace, thousandths of an attempt per second, in [min, max]. */
    private volatile long paceMilli;
    /** No attempt starts before this reading of the clock. */
    private volatile long holdUntilNanos;
    /** The pacer held an attempt back since the last change. */
    private volatile boolean pressed;

    /** When the pace last changed (or one nanosecond before its birth). */
    @GuardedBy("this")
    private long changedAtNanos;
    /** When it was last cut (or one nanosecond before its birth). */
    @GuardedBy("this")
    private long cutAtNanos;
    /** The recent mean latency of the 2xx answers, or -1 before the first. */
    @GuardedBy("this")
    private long recentNanos = -1;
    /** The usual (slower moving) mean latency of the 2xx answers, or -1 before the first. */
    @GuardedBy("this")
    private long usualNanos = -1;

    AdaptivePace(AdaptiveRate range, long maxHoldMillis, Clock clock) {
        this.range = range;
        this.stepMilli = Math.max(1, range.maxMilli() / STEPS);
        this.maxHoldNanos = Math.min(MAX_HOLD_NANOS, TimeUnit.MILLISECONDS.toNanos(Math.max(0, maxHoldMillis)));
        this.paceMilli = range.minMilli();
        // one nanosecond before its birth: an attempt started at its birth was sent at this pace
        long born = clock.nanoTime() - 1;
        this.changedAtNanos = born;
        this.cutAtNanos = born;
        this.holdUntilNanos = born;
    }

    /** The pace now, thousandths of an attempt per second. */
    long paceMilli() {
        return paceMilli;
    }

    /** The pace now, attempts per second. */
    double perSecond() {
        return paceMilli / (double) AdaptiveRate.MILLI;
    }

    /** The burst a bucket at {@code paceMilli} allows: a tenth of a second's attempts, at least one. */
    static int burst(long paceMilli) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, paceMilli / (10 * AdaptiveRate.MILLI)));
    }

    /** A limit at the pace now (rate and {@link #burst}), as the fleet's bucket is leased with. */
    Limit limit() {
        long p = paceMilli;
        return Limit.of(p / (double) AdaptiveRate.MILLI, burst(p));
    }

    /** Nanoseconds from {@code nowNanos} to the end of a {@code Retry-After} hold; 0 when none runs. */
    long holdNanos(long nowNanos) {
        long left = holdUntilNanos - nowNanos;
        return left > 0 ? left : 0;
    }

    /** The pacer held an attempt back: the pace, not the work, is what limits the destination. */
    void pressed() {
        if (!pressed) {
            pressed = true;
        }
    }

    /**
     * An attempt started at {@code startNanos} was answered with {@code result} at
     * {@code endNanos} (readings of this pace's clock).
     */
    void heard(AttemptResult result, long startNanos, long endNanos) {
        if (result instanceof AttemptResult.Answered a) {
            if (a.status() == 429 || a.status() == 503) {
                congested(startNanos, endNanos, a.retryAfterMillis());
            } else if (a.status() >= 200 && a.status() < 300) {
                succeeded(startNanos, endNanos);
            }
        } else if (result instanceof AttemptResult.Acknowledged) {
            succeeded(startNanos, endNanos);
        }
    }

    private synchronized void congested(long startNanos, long endNanos, long retryAfterMillis) {
        if (retryAfterMillis >= 0) {
            long hold = Math.min(maxHoldNanos, TimeUnit.MILLISECONDS.toNanos(retryAfterMillis));
            if (endNanos + hold - holdUntilNanos > 0) {
                holdUntilNanos = endNanos + hold;
            }
        }
        cut(startNanos, endNanos);
    }

    private synchronized void succeeded(long startNanos, long endNanos) {
        long took = Math.max(0, endNanos - startNanos);
        if (recentNanos < 0) {
            recentNanos = took;
            usualNanos = took;
        } else {
            recentNanos += (took - recentNanos) >> RECENT_SHIFT;
            usualNanos += (took - usualNanos) >> USUAL_SHIFT;
        }
        if (recentNanos - usualNanos > LATENCY_SLACK_NANOS && recentNanos / LATENCY_FACTOR > usualNanos) {
            cut(startNanos, endNanos);
            return;
        }
        if (pressed && startNanos - changedAtNanos > 0 && endNanos - changedAtNanos >= INTERVAL_NANOS
                && endNanos - holdUntilNanos >= 0 && paceMilli < range.maxMilli()) {
            changed(Math.min(range.maxMilli(), paceMilli + stepMilli), endNanos);
        }
    }

    /** One cut per round trip. */
    @GuardedBy("this")
    private void cut(long startNanos, long endNanos) {
        if (startNanos - cutAtNanos > 0) {
            cutAtNanos = endNanos;
            changed(Math.max(range.minMilli(), paceMilli * FALL_NUMERATOR / FALL_DENOMINATOR), endNanos);
        }
    }

    @GuardedBy("this")
    private void changed(long newPaceMilli, long atNanos) {
        paceMilli = newPaceMilli;
        changedAtNanos = atNanos;
        pressed = false;
    }

    @Override
    public String toString() {
        return range + " at " + AdaptiveRate.perSecond(paceMilli) + "/s";
    }
}

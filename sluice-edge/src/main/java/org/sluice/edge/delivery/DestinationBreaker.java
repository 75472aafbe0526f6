package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.TimeUnit;
import org.sluice.core.Clock;

/**
 * The circuit breaker of one destination: a state machine over the injected {@link Clock}.
 *
 * <pre>
 *            failures-th failure in a row
 *   CLOSED ───────────────────────────────▶ OPEN (for open)
 *     ▲                                       │ open has passed: the next tryPass()
 *     │ probe succeeded                       ▼ is the one PROBE
 *     └──────────────────────────────── HALF_OPEN
 *                                             │ probe failed: OPEN again, for
 *                                             └─▶ min(2 × open, max_open_ms)
 * </pre>
 *
 * <ul>
 *   <li>{@link #tryPass()} asks whether an attempt may start now: {@link Pass#ATTEMPT} while
 *       closed, {@link Pass#PROBE} to exactly one caller once the open time has passed,
 *       {@link Pass#WAIT} otherwise. A waiting delivery spends no attempt.</li>
 *   <li>Every pass that was not {@code WAIT} is reported once: {@link #succeeded},
 *       {@link #failed} or, for an attempt that never reached the destination (shutdown,
 *       destination paused meanwhile), {@link #abandoned}.</li>
 *   <li>Only the probe's result moves a half-open breaker. Results of attempts that started
 *       while it was still closed and end after it opened change nothing: the open time is
 *       not extended by stragglers, and one late success does not close it.</li>
 *   <li>A success while closed resets the run of failures; a probe success also resets the
 *       open time to {@code open_ms}.</li>
 * </ul>
 *
 * <p>Thread-safe: every method holds the breaker's monitor for a few field updates and
 * reads the clock under it; no I/O happens under it. Times are nanoseconds from the clock;
 * differences are compared, so the clock's origin does not matter.
 */
public final class DestinationBreaker {

    /** The breaker's state as last moved by a call (an OPEN whose time has passed stays OPEN until the next {@link #tryPass()}). */
    public enum State { CLOSED, OPEN, HALF_OPEN }

    /** The answer of {@link #tryPass()}. */
    public enum Pass {
        /** Closed: send the attempt and report its result. */
        ATTEMPT,
        /** The one trial attempt after an open period: send it and report its result. */
        PROBE,
        /** Do not send now; the delivery keeps its attempt count. */
        WAIT
    }

    private final Clock clock;
    private final int threshold;
    private final long baseOpenNanos;
    private final long maxOpenNanos;

    @GuardedBy("this")
    private State state = State.CLOSED;
    @GuardedBy("this")
    private int failuresInARow;
    @GuardedBy("this")
    private long openNanos;
    @GuardedBy("this")
    private long openedAt;

    public DestinationBreaker(BreakerSettings settings, Clock clock) {
        this.clock = clock;
        this.threshold = settings.failures();
        this.baseOpenNanos = TimeUnit.MILLISECONDS.toNanos(settings.openMs());
        this.maxOpenNanos = TimeUnit.MILLISECONDS.toNanos(settings.maxOpenMs());
        this.openNanos = baseOpenNanos;
    }

    /** May an attempt to this destination start now? */
    public synchronized Pass tryPass() {
        switch (state) {
            case CLOSED:
                return Pass.ATTEMPT;
            case OPEN:
                if (clock.nanoTime() - openedAt >= openNanos) {
                    state = State.HALF_OPEN;
                    return Pass.PROBE;
                }
                return Pass.WAIT;
            default:
                return Pass.WAIT; // the probe is out
        }
    }

    /** The attempt let through by {@code pass} got a delivered answer. */
    public synchronized void succeeded(Pass pass) {
        requireSent(pass);
        if (pass == Pass.PROBE && state == State.HALF_OPEN) {
            state = State.CLOSED;
            failuresInARow = 0;
            openNanos = baseOpenNanos;
        } else if (pass == Pass.ATTEMPT && state == State.CLOSED) {
            failuresInARow = 0;
        }
    }

    /** The attempt let through by {@code pass} failed (any outcome but delivered). */
    public synchronized void failed(Pass pass) {
        requireSent(pass);
        if (pass == Pass.PROBE && state == State.HALF_OPEN) {
            openNanos = openNanos > maxOpenNanos / 2 ? maxOpenNanos : Math.min(maxOpenNanos, 2 * openNanos);
            open();
        } else if (pass == Pass.ATTEMPT && state == State.CLOSED && ++failuresInARow >= threshold) {
            openNanos = baseOpenNanos;
            open();
        }
    }

    /**
     * The attempt let through by {@code pass} was never sent. An abandoned probe makes the
     * probe available again to the next {@link #tryPass()}; an abandoned attempt changes nothing.
     */
    public synchronized void abandoned(Pass pass) {
        requireSent(pass);
        if (pass == Pass.PROBE && state == State.HALF_OPEN) {
            state = State.OPEN;
            openedAt = clock.nanoTime() - openNanos;
        }
    }

    public synchronized State state() {
        return state;
    }

    /** Failed attempts in a row while closed. */
    public synchronized int failuresInARow() {
        return failuresInARow;
    }

    /** How long the current or next open period lasts, in nanoseconds. */
    public synchronized long openNanos() {
        return openNanos;
    }

    /**
     * Nanoseconds until {@link #tryPass()} can answer other than {@code WAIT}: 0 when it can
     * now, {@link Long#MAX_VALUE} while the probe is out (its result decides).
     */
    public synchronized long waitNanos() {
        return switch (state) {
            case CLOSED -> 0;
            case OPEN -> Math.max(0, openNanos - (clock.nanoTime() - openedAt));
            case HALF_OPEN -> Long.MAX_VALUE;
        };
    }

    @GuardedBy("this")
    private void open() {
        state = State.OPEN;
        openedAt = clock.nanoTime();
        failuresInARow = 0;
    }

    private static void requireSent(Pass pass) {
        if (pass == null || pass == Pass.WAIT) {
            throw new IllegalArgumentException("only a pass that let an attempt through has a result, got " + pass);
        }
    }
}

package org.sluice.fleet;

import java.util.concurrent.atomic.AtomicReference;
import org.sluice.core.Clock;

/**
 * The fleet store's circuit breaker: atomics only, no lock, no message, no allocation on
 * the closed path.
 *
 * <p>Design. The state is one immutable {@link Phase} (state, since) behind an {@link
 * AtomicReference}; every transition is a CAS from the phase the caller saw, so two
 * threads can never both make one transition:
 * <pre>
 *   CLOSED --(failure and window tripped)--> OPEN(now)
 *   OPEN(t) --(first acquire at now - t >= openNanos, CAS winner)--> PROBING(now)
 *   PROBING --(probe succeeded)--> CLOSED, window reset
 *   PROBING --(probe failed)-->   OPEN(now)
 *   PROBING(t) --(no outcome by t + openNanos: a lost probe)--> PROBING(now), a new probe
 * </pre>
 * {@link #acquire()} answers {@link #CALL} (closed: go ahead and report with {@link
 * #onCall}), {@link #PROBE} (exactly one caller: report with {@link #onProbe}) or {@link
 * #DENIED} (answer node-local, no store call). Calls admitted while closed that finish
 * after the breaker opened are still recorded in the window but change no state.
 *
 * <p>Memory ordering: the phase is published by CAS (volatile semantics); the window is
 * its own lock-free structure ({@link SlidingWindow}).
 */
final class CircuitBreaker {

    public static final int DENIED = 0;
    static final int CALL = 1;
    static final int PROBE = 2;

    private record Phase(BreakerState state, long since) {
    }

    private static final Phase CLOSED = new Phase(BreakerState.CLOSED, 0L);

    private final AtomicReference<Phase> phase = new AtomicReference<>(CLOSED);
    private final SlidingWindow window;
    private final Clock clock;
    private final long openNanos;
    private final int minCalls;
    private final double failureRate;

    public CircuitBreaker(Clock clock, double failureRate, int minCalls, long windowNanos, long openNanos) {
        this.clock = clock;
        this.failureRate = failureRate;
        this.minCalls = minCalls;
        this.openNanos = openNanos;
        this.window = new SlidingWindow(windowNanos, clock.nanoTime());
    }

    /** {@link #CALL}, {@link #PROBE} or {@link #DENIED}. */
    public int acquire() {
        Phase p = phase.get();
        if (p == CLOSED) {
            return CALL;
        }
        long now = clock.nanoTime();
        if (now - p.since() < openNanos) {
            return DENIED;
        }
        return phase.compareAndSet(p, new Phase(BreakerState.PROBING, now)) ? PROBE : DENIED;
    }

    /** The outcome of a call made under {@link #CALL}. */
    void onCall(boolean failed) {
        long now = clock.nanoTime();
        window.record(now, failed);
        if (failed && phase.get() == CLOSED && window.tripped(now, minCalls, failureRate)) {
            phase.compareAndSet(CLOSED, new Phase(BreakerState.OPEN, now));
        }
    }

    /** The outcome of the probe made under {@link #PROBE}. */
    void onProbe(boolean failed) {
        Phase p = phase.get();
        if (p.state() != BreakerState.PROBING) {
            return;
        }
        if (failed) {
            phase.compareAndSet(p, new Phase(BreakerState.OPEN, clock.nanoTime()));
        } else {
            window.reset();
            phase.compareAndSet(p, CLOSED);
        }
    }

    /** Reports an outcome for whichever permit {@link #acquire()} gave. */
    public void onResult(int permit, boolean failed) {
        if (permit == PROBE) {
            onProbe(failed);
        } else if (permit == CALL) {
            onCall(failed);
        }
    }

    public BreakerState state() {
        return phase.get().state();
    }
}

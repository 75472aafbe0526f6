package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.sluice.edge.store.DisabledDestination;

/**
 * How long one destination has failed without a single success, and what that owes the
 * dispatcher: a disable once the run has lasted {@code breaker.disable_after_seconds}, and a
 * {@code destination.recovered} event at the first success after an operator enabled it.
 *
 * <pre>
 *           failure                      failure at or past since + disable_after
 *   CLEAR ───────────▶ FAILING (since) ─────────────────────────────────▶ DUE
 *     ▲                    │ success                                     │ the pass writes the disable
 *     └────────────────────┘                                             ▼
 *     ▲                                                                 HELD (stored as disabled)
 *     │ enabled (the store no longer says disabled): CLEAR, recovering ◀─┘
 *     │ first success while recovering: the recovery is owed to the next pass
 * </pre>
 *
 * Answers come in on the transports' threads ({@link #succeeded}, {@link #failed}); the
 * dispatcher's pass reads and moves the rest ({@link #held}, {@link #disableDue},
 * {@link #takeRecovered}). Only a failure's time can make the disable due: a destination that
 * failed once and then had nothing to send for days is not disabled by the calendar alone.
 * Times are the dispatcher's wall clock (epoch ms): the run lasts days and must be measured
 * the same way after a restart of the node as before (the run itself is not stored: a
 * restart starts it again, which only delays a disable). Thread-safe: the monitor is held
 * for a few field updates.
 */
final class FailureStreak {

    private final long disableAfterMs;

    /** When the current run of failures began (epoch ms); -1: no failure since the last success. */
    @GuardedBy("this")
    private long since = -1;
    @GuardedBy("this")
    private String lastError;
    /** A failure came at or past {@code since + disableAfterMs}, and the disable is not written yet. */
    @GuardedBy("this")
    private boolean due;
    /** The store says disabled: answers of attempts still out change nothing. */
    @GuardedBy("this")
    private boolean held;
    /** Enabled after being disabled, and no success since. */
    @GuardedBy("this")
    private boolean recovering;
    /** A success ended {@link #recovering}; the next pass announces it. */
    @GuardedBy("this")
    private boolean recovered;

    /** @param disableAfterMs the run of failures that disables; 0: never */
    FailureStreak(long disableAfterMs) {
        this.disableAfterMs = disableAfterMs;
    }

    /** An attempt reached the destination and was delivered. */
    synchronized void succeeded() {
        since = -1;
        lastError = null;
        due = false;
        if (recovering && !held) {
            recovering = false;
            recovered = true;
        }
    }

    /** An attempt failed at {@code nowMs} with {@code error} (a status or the transport's words). */
    synchronized void failed(long nowMs, String error) {
        if (held) {
            return;
        }
        if (since < 0) {
            since = nowMs;
        }
        lastError = error;
        if (disableAfterMs > 0 && nowMs - since >= disableAfterMs) {
            due = true;
        }
    }

    /**
     * What the store says, once per pass: {@code disabled} true while it is stored as disabled.
     * Leaving that state (an operator enabled it) starts a clean run and owes a recovery at
     * the next success.
     */
    synchronized void held(boolean disabled) {
        if (disabled) {
            held = true;
            due = false;
            since = -1;
        } else if (held) {
            held = false;
            recovering = true;
            since = -1;
            lastError = null;
        }
    }

    /** The disable to write now (at {@code nowMs}), or null when none is due. */
    synchronized DisabledDestination disableDue(long nowMs) {
        if (!due || held) {
            return null;
        }
        return new DisabledDestination(nowMs, lastError == null ? "unknown" : lastError);
    }

    /** Whether a recovery is owed; true once per recovery. */
    synchronized boolean takeRecovered() {
        boolean r = recovered;
        recovered = false;
        return r;
    }
}

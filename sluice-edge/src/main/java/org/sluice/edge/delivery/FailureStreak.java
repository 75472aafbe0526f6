package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;

/**
 * How long one destination has failed without a single success, and what that owes the
 * dispatcher: a disable once the run has lasted {@code breaker.disable_after_seconds}, a
 * {@code destination.recovered} event at the first success after an operator enabled it, and
 * the run's start kept in the control state ({@link DestinationPauses#failingSince}), so that
 * a node restarted every day still disables a destination that has been dead for days.
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
 * dispatcher's pass reads and moves the rest ({@link #held}, {@link #toStore},
 * {@link #disableDue}, {@link #takeRecovered}). Only a failure's time can make the disable
 * due: a destination that failed once and then had nothing to send for days is not disabled
 * by the calendar alone. Times are the dispatcher's wall clock (epoch ms): the run lasts days
 * and must be measured the same way after a restart of the node as before.
 *
 * <h2>The stored start</h2>
 * Once per pass {@link #toStore} compares the run with the start the store holds and says
 * what the pass should write, so a write happens per change of the run, never per answer,
 * and never on a transport's thread:
 * <ul>
 *   <li>a run that has lasted {@code storeAfterMs} is stored (its start); a shorter one is
 *       not, so a destination that fails every other attempt writes nothing, and a restart
 *       loses at most that much of a run ({@value #MAX_UNSTORED_MS} ms, or a tenth of
 *       {@code disable_after} when that is shorter);</li>
 *   <li>a success here since the last pass clears the stored start (or replaces it with the
 *       start of a run that began after the success and is old enough);</li>
 *   <li>a stored start that changed since the last pass, and not by this node (the first read
 *       after a boot, or another node of the fleet on {@code store.kind: kafka}), becomes this
 *       node's run: a start is taken over, a cleared one ends the run here too. So the run is
 *       the fleet's: a success on any node ends it, and the newest record on the topic wins.</li>
 * </ul>
 * A disable or an enable clears the stored start itself ({@link DestinationPauses#setDisabled});
 * while held nothing is written. A write that fails is asked for again at the next pass.
 *
 * <p>Thread-safe: the monitor is held for a few field updates.
 */
final class FailureStreak {

    /** {@link #toStore}'s "write nothing". */
    static final long NO_WRITE = Long.MIN_VALUE;
    /** The longest run that is not stored: what a restart may lose of a run. */
    static final long MAX_UNSTORED_MS = 60_000;

    private final long disableAfterMs;
    /** How old a run must be before its start is stored. */
    private final long storeAfterMs;

    /** When the current run of failures began (epoch ms); -1: no failure since the last success. */
    @GuardedBy("this")
    private long since = -1;
    /** The last failure of the current run (epoch ms); -1: none. */
    @GuardedBy("this")
    private long lastFailure = -1;
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
    /** A success came since the last {@link #toStore}. */
    @GuardedBy("this")
    private boolean succeededSincePass;
    /** {@link #toStore} took a success whose write is not confirmed yet ({@link #stored}, {@link #notStored}). */
    @GuardedBy("this")
    private boolean successTaken;
    /** The stored start as the last pass saw it, or as this node last wrote it; -1: none. */
    @GuardedBy("this")
    private long seen = -1;

    /** @param disableAfterMs the run of failures that disables; 0: never (and nothing is stored) */
    FailureStreak(long disableAfterMs) {
        this.disableAfterMs = disableAfterMs;
        this.storeAfterMs = Math.min(MAX_UNSTORED_MS, disableAfterMs / 10);
    }

    /** An attempt reached the destination and was delivered. */
    synchronized void succeeded() {
        endRun();
        lastError = null;
        succeededSincePass = true;
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
        lastFailure = nowMs;
        lastError = error;
        checkDue();
    }

    @GuardedBy("this")
    private void checkDue() {
        if (disableAfterMs > 0 && since >= 0 && lastFailure - since >= disableAfterMs) {
            due = true;
        }
    }

    @GuardedBy("this")
    private void endRun() {
        since = -1;
        lastFailure = -1;
        due = false;
    }

    /**
     * What the store says, once per pass: {@code disabled} true while it is stored as disabled.
     * Leaving that state (an operator enabled it) starts a clean run and owes a recovery at
     * the next success.
     */
    synchronized void held(boolean disabled) {
        if (disabled) {
            held = true;
            endRun();
            succeededSincePass = false;
        } else if (held) {
            held = false;
            recovering = true;
            endRun();
            succeededSincePass = false;
            lastError = null;
        }
    }

    /**
     * Once per pass, after {@link #held}: takes in {@code stored}, the start the store holds
     * ({@link DestinationPauses#NOT_FAILING}: none), and answers what the pass should store at
     * {@code nowMs}: a start, {@link DestinationPauses#NOT_FAILING} to clear it, or
     * {@link #NO_WRITE}. Rules in the class comment. The pass then calls {@link #stored} or
     * {@link #notStored}.
     */
    synchronized long toStore(long stored, long nowMs) {
        long before = seen;
        seen = stored;
        if (held) {
            return NO_WRITE;
        }
        boolean success = succeededSincePass;
        succeededSincePass = false;
        successTaken = success;
        if (!success && stored != before) { // changed elsewhere, or read for the first time
            if (stored < 0) {
                endRun();
            } else {
                since = stored;
                checkDue();
            }
        }
        long want;
        if (since < 0 || disableAfterMs == 0) {
            want = DestinationPauses.NOT_FAILING;
        } else if (nowMs - since >= storeAfterMs) {
            want = since;
        } else {
            want = success ? DestinationPauses.NOT_FAILING : stored; // too young to store: only clear what a success ended
        }
        return want == stored ? NO_WRITE : want;
    }

    /** The pass stored {@code value}, as {@link #toStore} asked. */
    synchronized void stored(long value) {
        seen = value;
        successTaken = false;
    }

    /** The write {@link #toStore} asked for failed: the next pass asks again. */
    synchronized void notStored() {
        succeededSincePass |= successTaken;
        successTaken = false;
    }

    /** When the current run began (epoch ms), or -1. */
    synchronized long since() {
        return since;
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

package org.sluice.edge.delivery;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.threads.Threads;

/**
 * The dispatcher's driver thread ({@code sluice-delivery-dispatcher}): runs a pass, then
 * parks until the pass's outlets can start something (at most
 * {@value Dispatcher#MAX_PARK_MS} ms) or until {@link #wake()}.
 *
 * <h2>Wake-ups</h2>
 * Answers ({@link AnswerRecorder#queue}), a redelivery or a resume ({@link #wake()}) wake it
 * at once. A commit that wrote deliveries nobody started at the commit
 * ({@link #committed()}) wakes it only when an outlet could start an attempt now: one whose
 * last pass ended with free slots and nothing due. Under load, when every slot is out,
 * commits cost the driver nothing: an answer wakes it, and its next pass reads the new rows.
 *
 * <p>No commit's wake-up is lost: {@link #committed()} counts the commit before it reads
 * {@code wantsWork}, and the driver sets {@code wantsWork} before it reads the count (both
 * volatile), so either the commit sees the flag and wakes it, or the driver sees a commit
 * made since its pass began and passes again instead of parking.
 *
 * <h2>Gathering answers</h2>
 * Under load each answer would wake the driver for a pass of its own: one ledger write,
 * one due scan and one wake-up of the transport's thread per attempt, and those fixed
 * costs, not the attempts, would take the CPU. So the driver, before a pass, waits up to
 * {@value #GATHER_NANOS} ns of real time while at least {@value #GATHER_OUT} attempts are
 * out and fewer than {@value #GATHER_ANSWERS} answers are queued, and the pass then takes
 * every answer in together. With fewer attempts out (a quiet destination) nothing waits.
 * The wait adds at most that much latency to a delivery; due times, pacing and breakers
 * still run on the injected clocks.
 */
final class Driver {

    private static final Logger LOG = LoggerFactory.getLogger(Driver.class);

    /** A pass woken by answers waits for more while at least this many attempts are still out... */
    static final int GATHER_OUT = 32;
    /** ...and fewer than this many answers are queued... */
    static final int GATHER_ANSWERS = 16;
    /** ...for at most this long (real time; see "Gathering answers" above). */
    static final long GATHER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * How a pass ended: the attempts it {@code started}, {@code waitNanos} until something
     * can start, and whether it left a destination with free slots and nothing due
     * ({@code wantsWork}: a commit may give it work).
     */
    record PassEnd(int started, long waitNanos, boolean wantsWork) {
    }

    private final Supplier<PassEnd> passes;
    private final IntSupplier unanswered;
    private final IntSupplier answersQueued;
    private final AtomicBoolean woken = new AtomicBoolean();
    /** Commits that wrote deliveries for a pass to start, counted by {@link #committed()}. */
    private final AtomicLong commits = new AtomicLong();
    /** The driver is parked (or about to) with an outlet that could start attempts now: commits wake it. */
    private volatile boolean wantsWork;
    private volatile boolean stopping;
    private volatile Thread thread;

    /**
     * @param passes        runs one pass over every destination
     * @param unanswered    attempts out and not yet answered, over every destination
     * @param answersQueued answers waiting to be recorded
     */
    Driver(Supplier<PassEnd> passes, IntSupplier unanswered, IntSupplier answersQueued) {
        this.passes = passes;
        this.unanswered = unanswered;
        this.answersQueued = answersQueued;
    }

    /** Starts the thread; false when it already runs or the driver was stopped. */
    synchronized boolean start() {
        if (thread != null || stopping) {
            return false;
        }
        Thread t = Threads.daemon(this::drive, "sluice-delivery-dispatcher");
        thread = t;
        t.start();
        return true;
    }

    /** Whether the thread was started (and may still run: see {@link #stopping()}). */
    boolean started() {
        return thread != null;
    }

    /** Whether a pass will come for what is queued now: the thread was started and is not stopping. */
    boolean passesComing() {
        return thread != null && !stopping;
    }

    boolean stopping() {
        return stopping;
    }

    /** Any thread, event loops included: the driver runs a pass soon. Cheap and non-blocking. */
    void wake() {
        if (woken.getAndSet(true)) {
            return; // a wake is already pending: the driver runs a pass before it parks again
        }
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * A commit wrote deliveries that no attempt started at the commit: wakes the driver only
     * when an outlet could start one now (see "Wake-ups" above). Cheap and non-blocking;
     * called by the committing thread, after its write.
     */
    void committed() {
        commits.incrementAndGet();
        if (wantsWork) {
            wake();
        }
    }

    /** Commits that told the driver of rows left for a pass, since it was made; for tests. */
    long commitsTold() {
        return commits.get();
    }

    /** Stops the driver: no pass starts after its current one, and {@link #start()} does nothing from now on. */
    synchronized void stop() {
        stopping = true;
    }

    /** After {@link #stop()}: wakes the thread, if it was started, and waits up to {@code joinMillis} for it to end. */
    void awaitStopped(long joinMillis) {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(joinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void drive() {
        while (!stopping) {
            long wait;
            gather();
            long commitsBefore = commits.get();
            boolean idleOutlet = false;
            try {
                PassEnd end = passes.get();
                wait = end.waitNanos();
                idleOutlet = end.wantsWork();
            } catch (RuntimeException e) {
                LOG.warn("a delivery pass failed; trying again in {} ms: {}", Dispatcher.MAX_PARK_MS, e.toString());
                wait = TimeUnit.MILLISECONDS.toNanos(Dispatcher.MAX_PARK_MS);
            }
            if (idleOutlet) {
                wantsWork = true; // before reading the count: see committed()
                if (commits.get() != commitsBefore) {
                    wantsWork = false;
                    continue; // a commit since the pass began may not have been seen by its scans
                }
            }
            if (!woken.getAndSet(false) && wait > 0 && !stopping) {
                LockSupport.parkNanos(this, Math.min(wait, TimeUnit.MILLISECONDS.toNanos(Dispatcher.MAX_PARK_MS)));
                woken.set(false);
            }
            wantsWork = false;
        }
    }

    /**
     * When many attempts are out and few answers are in, waits a moment ({@value #GATHER_NANOS}
     * ns at most) for more, so that the pass records and replaces them together: one ledger
     * write, one scan and one hand-off to the transport's thread for many attempts instead
     * of one each. Wakes from answers are held off meanwhile (they would end the wait at the
     * first answer). Costs at most the wait in latency, only while the destination is busy.
     */
    private void gather() {
        if (unanswered.getAsInt() < GATHER_OUT || answersQueued.getAsInt() >= GATHER_ANSWERS) {
            return;
        }
        woken.set(true); // wake() from answers is a no-op until the pass
        LockSupport.parkNanos(this, GATHER_NANOS);
        woken.set(false); // an answer queued from now on is polled by the pass or wakes the next one
    }
}

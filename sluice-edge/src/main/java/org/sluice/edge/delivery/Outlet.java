package org.sluice.edge.delivery;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;

/**
 * One destination's outlet: what the dispatcher keeps per destination between passes. Its
 * {@code max_in_flight} slots ({@link #inFlight}), the rows whose attempt is out
 * ({@link #out}, {@link #outSeqs}), its breaker, its {@link Pacer}, its {@code fifo} heads,
 * the retry times it wakes the driver for, and its per-destination counters and meters.
 *
 * <p>A pass uses it in two halves: {@link #select} picks the rows to send (breaker and
 * pacer asked), then, after the pass's ledger write, {@link #sendPicks} sends them and
 * {@link #finish} says how long the driver may wait for this destination. An attempt
 * started at its commit takes a slot through {@link #claimAtCommit} instead.
 *
 * <p>Threads: {@link #select}, {@link #sendPicks} and {@link #finish} are the pass's (the
 * dispatcher calls them under its pump lock; what a pass carries from one to the next is
 * in its own variables, not here). The slots and
 * the out sets are shared with the committing threads ({@link #claimAtCommit},
 * {@link #sendClaimedAtCommit}) and the transports' threads ({@link #answered}), so they are
 * atomic or concurrent; the retry times are guarded by their own monitor.
 *
 * <p>The call into the transport is the one marked TRANSPORT below; {@link Destination}'s
 * fields are read in the constructor only (marked DESTINATION), and the destination itself
 * is handed to the transport with each attempt.
 */
final class Outlet {

    private static final Logger LOG = LoggerFactory.getLogger(Outlet.class);

    /** Extra due rows read per pass beyond the free slots (rows whose attempt is out are skipped). */
    static final int READ_AHEAD = 16;
    /** Retry due times an outlet keeps to wake the driver for (see {@link RetryTimes}). */
    static final int RETRY_TIMES = 4096;

    /** A row picked in a pass, to be sent after the pass's write; {@code seq} its hook's sequence number (-1: fifo). */
    record Pick(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes) {
    }

    /**
     * How a destination's pass ended: {@code nanos} until it can start something, and whether
     * it has free slots and nothing due now ({@code wantsWork}: a commit may give it work).
     */
    record Wait(long nanos, boolean wantsWork) {
        /** A pass that failed, or a destination whose write failed: look again after the longest park. */
        static final Wait RETRY = new Wait(TimeUnit.MILLISECONDS.toNanos(Dispatcher.MAX_PARK_MS), false);
    }

    /**
     * What one destination's pass picked and read, between {@link #select} and
     * {@link #finish}: {@code free} slots, {@code read} rows of a {@code limit}, the
     * due time after them, rows {@code finished} without an attempt, and {@code heldNanos}
     * when the breaker or limiter ended the pass (else -1).
     */
    record Selection(Outlet outlet, List<Pick> picks, int free, int read, int limit, long nextDue, int finished,
                     long heldNanos) {
        static Selection held(Outlet outlet, long nanos) {
            return new Selection(outlet, List.of(), 0, 0, 0, -1, 0, nanos);
        }
    }

    // DESTINATION: what this outlet keeps of its Destination (its fields are read in the constructor only)
    final Destination destination;
    /** Every attempt's error text passes it before the store, the admin API or a log line sees it. */
    private final SecretRedactor redactor;
    final String name;
    private final int maxInFlight;
    private final RetryPolicy retry;
    private final long timeoutMs;

    /** The store, clocks, recorder and driver's signals every outlet of the dispatcher shares. */
    private final OutletContext shared;
    private final HookStore store;
    private final DeliveryLedger ledger;

    final DestinationBreaker breaker;
    /** The run of failures that disables it ({@code breaker.disable_after_seconds}). */
    final FailureStreak streak;
    /** Told of dead letters; set once by the dispatcher before it starts. */
    private volatile DeliveryEvents events = DeliveryEvents.NONE;
    /** Its permits: this node's bucket (fixed or adaptive), or the fleet's ({@link FleetPacer}); null when unpaced. */
    final Pacer pacer;
    // TRANSPORT: the transport of this destination's type; called only in start()
    private final Transport transport;
    final FifoHeads fifo;
    /** Slots taken: attempts out, and answered attempts whose answer is not yet recorded. */
    final AtomicInteger inFlight = new AtomicInteger();
    /**
     * Hooks whose attempt to this destination is out, by hook id: a fifo head's (a fifo
     * scan has no sequence numbers). Never read twice.
     */
    private final Set<String> out = ConcurrentHashMap.newKeySet();
    /**
     * The same by commit sequence number, for every other row (every row of a non-fifo
     * destination has one): the due scan's held rows. A row is in one of the two sets,
     * never both ({@link #isOut}).
     */
    private final Set<Long> outSeqs = ConcurrentHashMap.newKeySet();
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    /** Its attempts, round trips and lags ({@code sluice_delivery_*}). */
    private final OutletMeters meters;
    /** The due times of the retries recorded and not yet come due, to wake the driver for. */
    private final RetryTimes retryTimes = new RetryTimes(RETRY_TIMES);

    Outlet(Destination d, Transport transport, OutletContext shared) {
        this.destination = d;
        this.redactor = SecretRedactor.of(d);
        this.name = d.name();
        this.maxInFlight = d.maxInFlight();
        this.retry = d.retry();
        this.timeoutMs = d.timeoutMs();
        this.shared = shared;
        this.store = shared.store();
        this.ledger = store.deliveries();
        MeterRegistry registry = shared.registry();
        this.breaker = new DestinationBreaker(d.breaker(), shared.clock());
        this.streak = new FailureStreak(d.breaker().disableAfterMs());
        this.pacer = Pacer.of(d, shared.fleetPacing(), shared.clock(), registry);
        this.fifo = d.ordering() == Ordering.FIFO ? new FifoHeads(ledger, store, name) : null;
        this.transport = transport;
        this.meters = new OutletMeters(name, registry);
    }

    /** Slots taken, capped at {@code max_in_flight} (see {@link OutletActivity}). */
    int inFlightCapped() {
        return Math.min(inFlight.get(), maxInFlight);
    }

    void events(DeliveryEvents events) {
        this.events = events;
    }

    boolean breakerHolding() {
        return breaker.state() != DestinationBreaker.State.CLOSED;
    }

    // ================================================================ a pass

    /**
     * The first half of this destination's pass: picks the rows to send (breaker and
     * pacer asked); {@link #finish} says how long to wait after it. {@code answeredThisPass}:
     * the answers the pass records for this destination, whose slots its picks may take over.
     */
    Selection select(long nowMs, boolean paused, int answeredThisPass) {
        if (paused) {
            return Selection.held(this, TimeUnit.MILLISECONDS.toNanos(Dispatcher.MAX_PARK_MS));
        }
        int free = maxInFlight - inFlight.get() + answeredThisPass;
        if (free <= 0) {
            return Selection.held(this, Long.MAX_VALUE); // an answer wakes the driver
        }
        List<DeliveryRow> rows;
        int limit = free + READ_AHEAD;
        long nextDue;
        long[] seqs;
        long writes = -1;
        if (fifo != null) {
            FifoHeads.Due due = fifo.due(nowMs, limit, out::contains);
            rows = due.rows();
            seqs = null;
            nextDue = due.nextDueMillis();
        } else {
            DeliveryLedger.Due due = ledger.dueBy(name, nowMs, limit, outSeqs::contains);
            rows = due.rows();
            seqs = due.seqs();
            writes = due.writes();
            nextDue = due.nextDueMillis();
        }
        StoredHook[] readAhead = readAhead(rows, seqs, free);
        int wanted = pacer != null ? wanted(rows, seqs, free) : 0;
        if (wanted > 0) { // one lease for every attempt this pass could start; none when nothing is due
            pacer.beginPass(wanted);
        }
        try {
            return pick(nowMs, rows, seqs, readAhead, free, limit, nextDue, writes);
        } finally {
            if (pacer != null) {
                pacer.endPass();
            }
        }
    }

    /** How many of {@code rows} a pass could start: those not out, at most {@code free}; one while the breaker is not closed. */
    private int wanted(List<DeliveryRow> rows, long[] seqs, int free) {
        int n = 0;
        for (int r = 0; r < rows.size() && n < free; r++) {
            if (!isOut(rows.get(r), seqs == null ? -1 : seqs[r])) {
                n++;
            }
        }
        return breaker.state() == DestinationBreaker.State.CLOSED ? n : Math.min(n, 1);
    }

    private Selection pick(long nowMs, List<DeliveryRow> rows, long[] seqs, StoredHook[] readAhead, int free, int limit,
                           long nextDue, long writes) {
        int finished = 0;
        List<Pick> picks = new ArrayList<>();
        long heldNanos = -1; // >= 0: the breaker or the limiter ended the pass, wait this long
        for (int r = 0; r < rows.size(); r++) {
            DeliveryRow row = rows.get(r);
            if (picks.size() >= free || shared.stopping().getAsBoolean()) {
                break;
            }
            if (isOut(row, seqs == null ? -1 : seqs[r])) {
                continue; // started at its commit since the scan read it
            }
            StoredHook hook = readAhead != null && readAhead[r] != null ? readAhead[r]
                    : store.getForDelivery(row.hookId(), seqs == null ? -1 : seqs[r]).orElse(null);
            if (hook == null) {
                continue; // a pending row's hook is never deleted; nothing to send if it were
            }
            if (retry.expired(nowMs - hook.receivedAtMillis())) {
                if (ledger.markDead(row, DeadReason.MAX_AGE.code(), false, null, null, nowMs)) {
                    finished++;
                    if (fifo != null) {
                        fifo.finished(row.hookId());
                    }
                }
                continue;
            }
            DestinationBreaker.Pass pass = breaker.tryPass();
            if (pass == DestinationBreaker.Pass.WAIT) {
                heldNanos = breaker.waitNanos();
                break;
            }
            if (pacer != null) {
                long w = pacer.tryTake();
                if (w > 0) {
                    breaker.abandoned(pass);
                    heldNanos = w;
                    break;
                }
            }
            picks.add(new Pick(row, hook, pass, seqs == null ? -1 : seqs[r], writes));
            if (pass == DestinationBreaker.Pass.PROBE) {
                heldNanos = Long.MAX_VALUE; // the probe's answer decides, and wakes the driver
                break;
            }
        }
        return new Selection(this, picks, free, rows.size(), limit, nextDue, finished, heldNanos);
    }

    /**
     * The hooks of the first {@code free} rows not out, read together in commit order
     * ({@link HookStore#getForDelivery(List, long[])}), at their rows' indexes; null when
     * the pass reads row by row: with no sequence numbers (a fifo scan), and on a paced
     * destination, whose pacer may let a pass send far fewer than it has slots for
     * (read ahead, the others would be read again on every pass), and while the breaker
     * is not closed (a pass then sends one probe at most).
     */
    private StoredHook[] readAhead(List<DeliveryRow> rows, long[] seqs, int free) {
        if (seqs == null || pacer != null || rows.size() < 2 || breaker.state() != DestinationBreaker.State.CLOSED) {
            return null;
        }
        List<String> ids = new ArrayList<>(Math.min(free, rows.size()));
        long[] wanted = new long[Math.min(free, rows.size())];
        int[] at = new int[wanted.length];
        for (int r = 0; r < rows.size() && ids.size() < wanted.length; r++) {
            if (!isOut(rows.get(r), seqs[r])) {
                at[ids.size()] = r;
                wanted[ids.size()] = seqs[r];
                ids.add(rows.get(r).hookId());
            }
        }
        StoredHook[] read = store.getForDelivery(ids, Arrays.copyOf(wanted, ids.size()));
        StoredHook[] byRow = new StoredHook[rows.size()];
        for (int i = 0; i < read.length; i++) {
            byRow[at[i]] = read[i];
        }
        return byRow;
    }

    /**
     * Sends the picks of {@code sel} when the pass's write went through ({@code written});
     * otherwise each gives its breaker pass back.
     */
    int sendPicks(Selection sel, boolean written, long nowMs) {
        for (Pick p : sel.picks()) {
            if (written) {
                inFlight.incrementAndGet();
                start(p.row(), p.hook(), p.pass(), p.seq(), p.writes(), nowMs);
            } else {
                breaker.abandoned(p.pass());
            }
        }
        return written ? sel.picks().size() : 0;
    }

    /** How long to wait after {@code sel}'s sends: {@code started} attempts began. */
    Wait finish(Selection sel, int started, long nowMs, boolean writeFailed) {
        if (writeFailed) {
            return Wait.RETRY;
        }
        if (sel.heldNanos() >= 0) {
            boolean probeLost = sel.heldNanos() == Long.MAX_VALUE && !sel.picks().isEmpty() && started == 0;
            return new Wait(probeLost ? 0 : sel.heldNanos(), false); // a probe not sent was abandoned: look again
        }
        long nextDue = sel.nextDue();
        boolean moreDueNow = fifo != null ? sel.read() >= sel.limit() : nextDue >= 0 && nextDue <= nowMs;
        if (started >= sel.free()) {
            return new Wait(Long.MAX_VALUE, false);
        } else if ((started > 0 || sel.finished() > 0) && moreDueNow) {
            return new Wait(0, false); // more may be due now
        } else {
            long next;
            if (fifo != null) {
                next = nextDue; // the heads' scan saw the first entry after the rows it read
            } else {
                // the scan stops at now (see DeliveryLedger#dueBy): the next row this outlet
                // knows of is its own earliest retry; the rest (a commit claim's expiry, a row an
                // operator scheduled) is found by a pass within MAX_PARK_MS, and commits
                // and answers wake the driver themselves
                next = retryTimes.nextAfter(nowMs);
            }
            return new Wait(next < 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(Math.max(1, next - nowMs)), true);
        }
    }

    // ================================================================ first attempts at commit

    /**
     * On a committing thread, under the store's commit lock (see {@link CommitStarter#claim}):
     * takes a slot, the breaker's pass and a pacing token for a first attempt right after
     * the commit, keeping a quarter of {@code max_in_flight} (at least one) for the due scan.
     * Returns the claim's expiry, or -1 (nothing taken).
     */
    long claimAtCommit(long nowMs) {
        int limit = maxInFlight - Math.max(1, maxInFlight / 4);
        for (int cur = inFlight.get(); ; cur = inFlight.get()) {
            if (cur >= limit) {
                return -1;
            }
            if (inFlight.compareAndSet(cur, cur + 1)) {
                break;
            }
        }
        DestinationBreaker.Pass pass = breaker.tryPass();
        if (pass != DestinationBreaker.Pass.ATTEMPT) { // open, or a probe due: the scan's pass decides
            if (pass == DestinationBreaker.Pass.PROBE) {
                breaker.abandoned(pass);
            }
            inFlight.decrementAndGet();
            return -1;
        }
        if (pacer != null && pacer.tryTakeAtCommit() > 0) {
            inFlight.decrementAndGet();
            return -1;
        }
        return nowMs + timeoutMs + Dispatcher.CLAIM_SLACK_MS;
    }

    /** The commit holding a claim taken by {@link #claimAtCommit} was not written. */
    void unclaimAtCommit() {
        inFlight.decrementAndGet();
        shared.wake().run(); // a slot is free again
    }

    /** Starts the first attempt of a delivery claimed at its commit (its slot is taken). */
    void sendClaimedAtCommit(DeliveryRow row, StoredHook hook, long seq, long writes, long nowMs) {
        start(row, hook, DestinationBreaker.Pass.ATTEMPT, seq, writes, nowMs);
    }

    // ================================================================ an attempt

    /**
     * Sends one attempt whose {@code max_in_flight} slot is taken. The row is held in
     * memory ({@link #out}, and {@link #outSeqs} by its sequence number, {@code seq} >= 0),
     * not in the store: the due scan steps over it until its answer is recorded.
     * {@code writes}: the ledger's {@link DeliveryLedger#othersWrites()} before the row was
     * read (-1: unknown), so that the answer's transition need not read it again.
     */
    private void start(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes,
                       long nowMs) {
        int attempt = row.nextAttemptNumber();
        if (seq >= 0) {
            outSeqs.add(seq);
        } else {
            out.add(row.hookId());
        }
        shared.outstanding().started();
        long startNanos = shared.clock().nanoTime();
        // TRANSPORT: the one call that sends. Judged on the thread that completes the attempt
        // (the transport's own, e.g. the HTTP client's event loop): a few arithmetic steps and
        // a queue, no I/O, no hand-off
        transport.send(destination, hook, attempt, nowMs).whenComplete((o, e) -> {
            shared.outstanding().answered();
            if (o != null) {
                answered(row, hook, pass, seq, writes, startNanos, o.result(), redactor.redact(o.error()));
            } else { // transports never fail their futures; if one did, the row stays pending, due again
                release(row, seq);
            }
        });
    }

    /**
     * On the thread that completed the attempt (a transport's): judges the answer, tells
     * the breaker, and hands it to the recorder, which has the driver's next pass (or, with
     * no driver, the answer executor) write it.
     */
    private void answered(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes,
                          long startNanos, AttemptResult result, String error) {
        AnswerRecorder.Answer answer;
        try {
            long nowMs = shared.wallMillis().getAsLong();
            long endNanos = shared.clock().nanoTime();
            meters.answered(startNanos, endNanos);
            if (pacer != null) {
                pacer.heard(result, startNanos, endNanos); // an adaptive pace listens
            }
            Integer status = result instanceof AttemptResult.Answered a ? a.status() : null;
            int attempt = row.nextAttemptNumber();
            Decision decision = shared.recorder().judge(retry, attempt, result, nowMs - hook.receivedAtMillis());
            if (decision instanceof Decision.Delivered) {
                breaker.succeeded(pass);
                streak.succeeded();
            } else if (result instanceof AttemptResult.Untransformable) {
                breaker.abandoned(pass); // nothing reached the destination: its breaker learns nothing
                failed.incrementAndGet();
            } else {
                breaker.failed(pass);
                streak.failed(nowMs, status != null ? "HTTP " + status : error);
                failed.incrementAndGet();
            }
            answer = new AnswerRecorder.Answer(this, row, seq, writes, hook, decision, status, error, nowMs);
        } catch (RuntimeException e) {
            try (MDC.MDCCloseable inMdc = MDC.putCloseable("hook_id", row.hookId())) {
                LOG.warn("judging the answer of hook {} from destination {} failed (the delivery stays pending): {}",
                        row.hookId(), name, e.toString());
            }
            release(row, seq);
            return;
        }
        shared.recorder().queue(answer);
    }

    /** After {@code a}'s transition was written: counters, meters, fifo. */
    void recorded(AnswerRecorder.Answer a) {
        if (a.decision() instanceof Decision.Delivered) {
            delivered.incrementAndGet();
            meters.delivered(a.nowMs(), a.hook().receivedAtMillis());
        } else if (a.decision() instanceof Decision.Retry r) {
            meters.retry();
            if (fifo == null) { // a fifo scan reads its next due time itself
                retryTimes.add(a.nowMs() + r.delayMillis());
            }
            return;
        } else {
            meters.dead();
            Decision.Dead dead = (Decision.Dead) a.decision();
            logDead(a, dead);
            events.deadLetter(name, a.row().hookId(), a.hook().source(), dead.reason().code(), a.status(), a.error(),
                    a.nowMs());
        }
        if (fifo != null) {
            fifo.finished(a.row().hookId());
        }
    }

    /** One line per dead letter (rare: not a line per attempt), with the hook's id in the MDC ({@code hook_id}). */
    private void logDead(AnswerRecorder.Answer a, Decision.Dead dead) {
        try (MDC.MDCCloseable inMdc = MDC.putCloseable("hook_id", a.row().hookId())) {
            LOG.info("hook {} is dead at destination {} ({}) after attempt {}{}", a.row().hookId(), name,
                    dead.reason().code(), a.row().nextAttemptNumber(),
                    a.status() != null ? ", answered " + a.status() : a.error() != null ? ": " + a.error() : "");
        }
    }

    // ================================================================ a replay's streamed attempts

    /**
     * A replay's streamed attempt ({@link StreamedReplay}): the first attempt of a fresh
     * delivery of {@code hook}, sent through this destination's transport as a pass sends one
     * (the same record, attempt 1), with no row and no slot: null, nothing sent, unless the
     * breaker answers {@code ATTEMPT}. The breaker, the run of failures, the latency, the
     * adaptive pace and, once acknowledged, the delivered counters and the lag hear the
     * answer as they hear a pass's; a failure counts as {@code outcome="retry"} (the caller
     * gives the hook a pending delivery, which the dispatcher retries). The future completes
     * on the transport's thread: true when acknowledged.
     */
    CompletableFuture<Boolean> sendStreamed(StoredHook hook, long nowMs) {
        DestinationBreaker.Pass pass = breaker.tryPass();
        if (pass != DestinationBreaker.Pass.ATTEMPT) {
            if (pass == DestinationBreaker.Pass.PROBE) {
                breaker.abandoned(pass); // the dispatcher's pass sends the probe
            }
            return null;
        }
        long startNanos = shared.clock().nanoTime();
        // TRANSPORT: the same call as start()'s, attempt 1 of a fresh delivery
        return transport.send(destination, hook, 1, nowMs).handle((o, e) -> streamAnswered(hook, pass, startNanos, o));
    }

    /** Starts the streamed attempts queued since the last flush (the transport's one hand-off). */
    void flushStreamed() {
        transport.flush();
    }

    /** The answer of a streamed attempt (null: the transport failed the future, which none does); true when delivered. */
    private boolean streamAnswered(StoredHook hook, DestinationBreaker.Pass pass, long startNanos, AttemptOutcome o) {
        try {
            long nowMs = shared.wallMillis().getAsLong();
            long endNanos = shared.clock().nanoTime();
            meters.answered(startNanos, endNanos);
            AttemptResult result = o == null ? AttemptResult.failed(AttemptResult.Failure.PROTOCOL) : o.result();
            if (pacer != null) {
                pacer.heard(result, startNanos, endNanos);
            }
            if (result instanceof AttemptResult.Acknowledged) {
                breaker.succeeded(pass);
                streak.succeeded();
                delivered.incrementAndGet();
                meters.delivered(nowMs, hook.receivedAtMillis());
                return true;
            }
            if (result instanceof AttemptResult.Untransformable) {
                breaker.abandoned(pass);
            } else {
                breaker.failed(pass);
                streak.failed(nowMs, o == null ? null : redactor.redact(o.error()));
            }
            failed.incrementAndGet();
            meters.retry();
            return false;
        } catch (RuntimeException e) {
            LOG.warn("judging a replay's streamed attempt of hook {} to destination {} failed (it goes through the"
                    + " ledger): {}", hook.id(), name, e.toString());
            return false;
        }
    }

    /** Whether an attempt of a fifo head (held by hook id) is out for any of {@code hookIds}. */
    boolean anyOut(Collection<String> hookIds) {
        for (String id : hookIds) {
            if (out.contains(id)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the attempt of {@code row} ({@code seq}: its sequence number, -1 for a fifo head) is out. */
    private boolean isOut(DeliveryRow row, long seq) {
        return seq >= 0 ? outSeqs.contains(seq) : out.contains(row.hookId());
    }

    /** The attempt ended without its answer being queued for recording. */
    private void release(DeliveryRow row, long seq) {
        inFlight.decrementAndGet();
        releaseQuietly(row, seq, row.nextAttemptAtMillis());
        shared.wake().run();
    }

    /**
     * After {@code a}'s write: its row may be read again. {@code applied}: its transition
     * was written (a delivered or dead row has no due entry left; a retry's entry is at
     * its new due time); else the row is as it was, due at its old time, or an operator's
     * redelivery replaced it with one due by now.
     */
    void releaseAnswered(AnswerRecorder.Answer a, boolean applied) {
        long dueAgain;
        if (!applied) {
            dueAgain = Math.min(a.row().nextAttemptAtMillis(), shared.wallMillis().getAsLong());
        } else if (a.decision() instanceof Decision.Retry r) {
            dueAgain = a.nowMs() + r.delayMillis();
        } else {
            dueAgain = -1;
        }
        releaseQuietly(a.row(), a.seq(), dueAgain);
    }

    /**
     * The attempt's answer is recorded (or given up on): its row may be read again, and
     * when it is still pending ({@code dueAgainMillis} >= 0, when it is due) the due scan
     * is told, since a scan that stepped over the held row may have raised its floor past
     * it ({@link DeliveryLedger#unheld}; after the row leaves {@link #outSeqs}, so that a
     * scan either sees it free or has its floor lowered after). Its slot ({@code inFlight})
     * is freed by whoever recorded the answer (a pass, after its write; the answer
     * executor). No wake.
     */
    private void releaseQuietly(DeliveryRow row, long seq, long dueAgainMillis) {
        if (seq >= 0) {
            outSeqs.remove(seq);
        } else {
            out.remove(row.hookId());
        }
        if (dueAgainMillis >= 0) {
            ledger.unheld(name, dueAgainMillis);
        }
        shared.outstanding().handled();
    }
}

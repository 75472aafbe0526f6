package org.sluice.edge.delivery;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.core.RateLimiter;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.ReplayStream;
import org.sluice.edge.delivery.targets.KafkaTarget;

/**
 * Hands pending deliveries on to their destinations: reads due rows from the
 * {@link DeliveryLedger}, sends each as one attempt through the {@link Transport} of its
 * destination's type ({@link org.sluice.edge.delivery.http.HttpDeliveryClient} for {@code http}), and records what came back.
 * It wires five parts, each with one job:
 * <ul>
 *   <li>{@link Outlet}, one per destination: its {@code max_in_flight} slots, pacing,
 *       breaker, {@code fifo} heads, the attempts it has out;</li>
 *   <li>{@link Driver}: the thread that runs passes and parks between them;</li>
 *   <li>{@link CommitStarter}: starts a new hook's first attempts at its commit;</li>
 *   <li>{@link AnswerRecorder}: writes each attempt's outcome (retry, dead, delivered) to the ledger;</li>
 *   <li>{@link OutletActivity}: the live figures and gauges ({@link #activity()}).</li>
 * </ul>
 * This class holds the pass ({@link #pump()}) and the lifecycle.
 *
 * <h2>One pass ({@link #pump()})</h2>
 * For each destination, at the clock's current time:
 * <ol>
 *   <li>skip it while paused or disabled ({@link DestinationPauses#pausedDestinations()} and
 *       {@link DestinationPauses#disabledDestinations()}, re-read every pass; a disable that
 *       came due, see {@link FailureStreak}, is written at the pass's start and audited
 *       through {@link DeliveryAudit}; so is the start of a run of failures that is to outlive
 *       a restart, {@link DestinationPauses#failingSince()}) or while
 *       {@code max_in_flight} attempts are out;</li>
 *   <li>read the rows due by now ({@link DeliveryLedger#dueBy}, a scan that never reads
 *       past now; for {@code fifo}, the heads of each (tenant, source), see
 *       {@link FifoHeads}), stepping over the rows whose attempt is out without reading them;</li>
 *   <li>a row whose hook is {@code max_age_seconds} old is dead ({@code max_age}) without
 *       an attempt;</li>
 *   <li>ask the breaker ({@link DestinationBreaker#tryPass()}) and then the {@link Pacer}
 *       (a {@code sluice-core} {@link RateLimiter} over the destination's {@code rate}, or,
 *       with {@link FleetPacing}, permits leased from the fleet's bucket once per pass:
 *       {@link FleetPacer}); either one saying wait ends the destination's pass, spending
 *       no attempt;</li>
 *   <li>send: the row is held in memory while its attempt is out (the scan steps over it),
 *       not claimed in the store. Its stored row stays pending and due, so an attempt lost
 *       with the process is made again at the next start.</li>
 * </ol>
 * The answer is judged by {@link RetryPolicy#decide} on the thread that completed the
 * attempt (the breaker hears {@code succeeded} or {@code failed} at once) and queued. The next pass records
 * the queued answers ({@code recordAttempt}, {@code markDelivered} or {@code markDead}
 * transitions) in ONE {@link DeliveryLedger#apply} write, then sends its picks, started
 * together by {@link Transport#flush()}. An attempt holds its
 * {@code max_in_flight} slot until that write, so the attempts whose outcome is not
 * recorded never exceed {@code max_in_flight} (what a crash can re-send): the pass's picks
 * take over answered attempts' slots, and the rest are freed only after the write, so a
 * commit's claim on another thread cannot take one whose answer is still unrecorded. One write per
 * pass matters: a ledger write waits for the store's fsync in progress (RocksDB writes in
 * groups and ingest's groups are fsynced), and one write per row capped delivery at a
 * few rows per fsync. Holding rows in memory instead of claiming them in the store saves
 * a row read and three writes per attempt (see docs/bench-notes/delivery-http-2026-12-03-to-04.md, "Rows held in memory").
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>the driver ({@code sluice-delivery-dispatcher}, started by {@link #start()}): runs a
 *       pass, then parks until the earliest time something can start (a retry it recorded,
 *       the next row of a {@code fifo} scan, breaker's open time, limiter's wait; at most
 *       {@value #MAX_PARK_MS} ms, so a row due later for another reason, such as a claim
 *       that expired, waits at most that long) or until {@link #wake()}; before a pass it may
 *       gather answers for a moment (see {@link Driver}); tests call {@link #pump()}
 *       themselves on a manual clock instead;</li>
 *   <li>the committing threads (the intake's writers): claims under the store's commit lock
 *       and the start of the claimed attempts after the write ({@link CommitStarter});</li>
 *   <li>the transports' threads (the HTTP client's event loops: the server's ingest loops
 *       {@code sluice-io-N} when it lends them, else its own {@code sluice-delivery-io-N};
 *       a broker client's I/O thread): their network work, and, when an attempt completes,
 *       judging its answer, telling the breaker, queueing it and waking the driver (no I/O,
 *       no lock but the jitter generator's; a hand-off to another thread per answer cost more
 *       than the judging);</li>
 *   <li>the answer executor ({@code sluice-delivery-N}, 2 threads): records queued answers
 *       only when no driver runs (a test pumping by hand, or closing), so that a
 *       transport's thread never waits for a ledger write.</li>
 * </ul>
 * No lock is held across a network call but one: a pass's lease of fleet pacing permits
 * ({@link FleetPacing}, bounded by {@code fleet.timeout_ms} per paced destination with
 * something due), made under {@code pumpLock}, which only passes and {@link #close()} take.
 * The ledger's own lock is held only inside its calls, and the store's commit lock is never taken. Passes are serialised by
 * {@code pumpLock}. Every time used for scheduling comes from the injected {@link Clock}
 * (monotonic: breaker, limiter, latency) and the injected wall clock (epoch ms: due
 * times, ages, {@code webhook-timestamp}), so a test drives a day of retries on a manual
 * clock. Only the attempt's own I/O timeout runs on real time (the event loop's timer).
 */
public final class Dispatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** A row claimed at its commit comes due again this long after its attempt's timeout, if its answer was never recorded. */
    static final long CLAIM_SLACK_MS = 30_000;
    /** The driver looks again at least this often (paused destinations, a store that failed). */
    static final long MAX_PARK_MS = 1_000;
    private static final Duration DEFAULT_CLOSE_GRACE = Duration.ofSeconds(5);

    private final HookStore store;
    private final DeliveryLedger ledger;
    /** The paused destinations: the ledger's, or the fleet's control state. */
    private final DestinationPauses pauses;
    private final LongSupplier wallMillis;
    /** By destination name, in configuration order; fixed at construction. */
    private final Map<String, Outlet> outlets;
    // TRANSPORT: made, flushed after a pass and closed here; each outlet sends through its own
    private final Transports transports;
    private final OutstandingAttempts outstanding = new OutstandingAttempts();
    private final Driver driver;
    private final AnswerRecorder recorder;
    private final CommitStarter starter;
    private final OutletActivity activity;
    private final long closeGraceNanos;
    private volatile DeliveryEvents events = DeliveryEvents.NONE;
    private volatile DeliveryAudit audit = DeliveryAudit.NONE;

    /** Serialises passes, and close against a pass. */
    private final Object pumpLock = new Object();
    /** Nanoseconds from the end of the last pass until something can start; for tests. */
    @GuardedBy("pumpLock")
    private long nextWaitNanos;

    /**
     * A dispatcher for {@code destinations} over {@code store}'s ledger. Nothing is sent
     * until {@link #start()} (or a test's {@link #pump()}).
     *
     * @param clock      monotonic time: breaker, pacing, latency
     * @param wallMillis epoch milliseconds, the store's wall clock: due times and ages
     * @param registry   where the {@code sluice_delivery_*} meters go
     * @param random     the jitter of retry waits
     * @param factory    makes the transport of each kind of target in use (the server's
     *                   names each room); a transport on borrowed event loops needs this
     *                   dispatcher closed before their owner shuts them down, or its attempts
     *                   out end as {@code client closed} instead of with their answers
     */
    public Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
                      MeterRegistry registry, RandomGenerator random, TransportFactory factory) {
        this(destinations, store, store.deliveries(), null, clock, wallMillis, registry, random, DEFAULT_CLOSE_GRACE,
                factory);
    }

    /**
     * As {@link #Dispatcher(List, HookStore, Clock, LongSupplier, MeterRegistry, RandomGenerator, TransportFactory)},
     * with the paused destinations read from {@code pauses} rather than from the store's
     * ledger: under {@code store.kind: kafka} they are the fleet's control state.
     */
    public Dispatcher(List<Destination> destinations, HookStore store, DestinationPauses pauses, Clock clock,
                      LongSupplier wallMillis, MeterRegistry registry, RandomGenerator random, TransportFactory factory) {
        this(destinations, store, pauses, null, clock, wallMillis, registry, random, DEFAULT_CLOSE_GRACE, factory);
    }

    /**
     * As {@link #Dispatcher(List, HookStore, DestinationPauses, Clock, LongSupplier, MeterRegistry, RandomGenerator,
     * TransportFactory)}, with each paced destination's permits leased from {@code pacing}, the
     * fleet's buckets (null: this node's own): under {@code store.kind: kafka} with the fleet's
     * Redis, a destination's {@code rate} is the fleet's (see {@link FleetPacer}).
     */
    public Dispatcher(List<Destination> destinations, HookStore store, DestinationPauses pauses, FleetPacing pacing,
                      Clock clock, LongSupplier wallMillis, MeterRegistry registry, RandomGenerator random,
                      TransportFactory factory) {
        this(destinations, store, pauses, pacing, clock, wallMillis, registry, random, DEFAULT_CLOSE_GRACE, factory);
    }

    /** As the public constructor with {@code pacing}, with a close grace of the test's choosing. */
    Dispatcher(List<Destination> destinations, HookStore store, FleetPacing pacing, Clock clock, LongSupplier wallMillis,
               MeterRegistry registry, RandomGenerator random, Duration closeGrace, TransportFactory factory) {
        this(destinations, store, store.deliveries(), pacing, clock, wallMillis, registry, random, closeGrace, factory);
    }

    Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
               MeterRegistry registry, RandomGenerator random, Duration closeGrace, TransportFactory factory) {
        this(destinations, store, store.deliveries(), null, clock, wallMillis, registry, random, closeGrace, factory);
    }

    private Dispatcher(List<Destination> destinations, HookStore store, DestinationPauses pauses, FleetPacing pacing,
                       Clock clock, LongSupplier wallMillis, MeterRegistry registry, RandomGenerator random,
                       Duration closeGrace, TransportFactory factory) {
        this.store = store;
        this.ledger = store.deliveries();
        this.pauses = java.util.Objects.requireNonNull(pauses, "pauses");
        this.wallMillis = wallMillis;
        this.closeGraceNanos = closeGrace.toNanos();
        InstantSource wall = () -> Instant.ofEpochMilli(wallMillis.getAsLong());
        if (destinations.stream().map(Destination::name).distinct().count() != destinations.size()) {
            throw new IllegalArgumentException("a destination is configured twice: " + destinations);
        }
        this.driver = new Driver(this::pass, outstanding::unanswered, this::answersQueued);
        this.recorder = new AnswerRecorder(ledger, random, driver::passesComing, driver::wake);
        this.transports = new Transports(destinations, wall, factory);
        OutletContext shared = new OutletContext(store, clock, wallMillis, outstanding, recorder, driver::wake,
                driver::stopping, registry, pacing);
        Map<String, Outlet> byName = new LinkedHashMap<>();
        for (Destination d : destinations) {
            byName.put(d.name(), new Outlet(d, transports.of(d), shared));
        }
        this.outlets = Collections.unmodifiableMap(byName);
        this.starter = new CommitStarter(outlets, pauses, wallMillis, driver, transports);
        this.activity = new OutletActivity(outlets, store, wallMillis, registry);
    }

    // ================================================================ lifecycle

    /** Starts the driver thread, and claims new deliveries at their commit from now on. */
    public synchronized void start() {
        if (!driver.start()) {
            return;
        }
        try {
            pauses.pausedDestinations(); // read once now: claims at commit know the paused set only from memory
        } catch (RuntimeException e) { // the store is failing: until a pass reads it, every delivery goes through the scan
            LOG.warn("reading the paused destinations failed: {}", e.toString());
        }
        store.setCommitClaims(starter);
    }

    /**
     * Something may have become due (a redelivery, a resume, a replay; a commit tells the
     * driver through {@link #commitClaims()}):
     * the driver runs a pass soon. Cheap and non-blocking; callable from any thread,
     * event loops included.
     */
    public void wake() {
        driver.wake();
    }

    /**
     * Who is told of disabled and recovered destinations and of dead letters (the operational
     * events); {@link DeliveryEvents#NONE} until set. Set before {@link #start()}.
     */
    public void events(DeliveryEvents events) {
        this.events = java.util.Objects.requireNonNull(events, "events");
        outlets.values().forEach(o -> o.events(events));
    }

    /**
     * Where the audit record of a destination the dispatcher disabled is written
     * ({@link DeliveryAudit#NONE} until set: the disable is stored and told, not audited). Set
     * before {@link #start()}.
     */
    public void audit(DeliveryAudit audit) {
        this.audit = java.util.Objects.requireNonNull(audit, "audit");
    }

    /** The admin paused or resumed {@code destination} (passes re-read the paused set; this only wakes the driver). */
    public void pausedChanged(String destination) {
        wake();
    }

    /**
     * Stops the driver, waits up to the close grace (5 s) for attempts in flight, then
     * stops recording answers and closes the connections. Anything not recorded stays
     * pending in the ledger (a row claimed at its commit comes due again after its claim,
     * any other at once), so after a restart it is attempted again. Call before the store closes.
     */
    @Override
    public void close() {
        synchronized (this) { // a start() either finished before (its claims are unset below) or does nothing
            driver.stop();
        }
        store.setCommitClaims(null);
        driver.awaitStopped(TimeUnit.NANOSECONDS.toMillis(closeGraceNanos) + 1_000);
        recorder.recordQueued(); // answers the driver left queued; from now on the answer threads record their own
        synchronized (pumpLock) { // no pass is running or will start attempts after this
            outstanding.awaitIdle(Duration.ofNanos(closeGraceNanos));
        }
        recorder.stopRecording();
        transports.close();
        recorder.shutdown();
    }

    /**
     * Waits until no attempt is out (each answered and recorded), at most {@code timeout}
     * of real time. Returns true when idle.
     */
    boolean awaitIdle(Duration timeout) {
        return outstanding.awaitIdle(timeout);
    }

    /**
     * Waits, at most {@code timeout} of real time, until no attempt to a {@code fifo}
     * destination is out for any of {@code hookIds}; a pass running when called finishes
     * first, so that its picks count. For a working set of the fleet's log giving a
     * partition up (docs/fleet-log.md, "Membership and failover"): once its hooks are
     * forgotten nothing new starts on them, and what is out ends before the next owner
     * reads them, so no late copy of a head reaches a receiver after the next owner has sent
     * a later hook of its (tenant, source). Returns true when none is out.
     */
    public boolean awaitOrderedAttemptsEnded(Collection<String> hookIds, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Outlet> ordered;
        synchronized (pumpLock) { // a pass picks and starts its attempts under this lock
            ordered = outlets.values().stream().filter(o -> o.fifo != null).toList();
        }
        while (true) {
            boolean out = false;
            for (Outlet o : ordered) {
                out |= o.anyOut(hookIds);
            }
            if (!out) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /**
     * A replay's direct path to {@code destination} ({@link StreamedReplay}; docs/fleet-log.md,
     * "Replays", "Streaming"), one per replay: only for a {@code kafka} destination that the
     * fleet's bucket does not pace; null for any other (the replay then schedules every hook
     * in the ledger).
     */
    public ReplayStream replayStream(String destination) {
        Outlet outlet = outlets.get(destination);
        if (outlet == null || !(outlet.destination.target() instanceof KafkaTarget) || outlet.pacer instanceof FleetPacer) {
            return null;
        }
        return new StreamedReplay(outlet, pauses, driver::stopping, wallMillis);
    }

    // ================================================================ status

    /** What the dispatcher is doing per destination, for the admin API. */
    public DeliveryActivity activity() {
        return activity;
    }

    /** The configured destinations, in configuration order. */
    public List<Destination> destinations() {
        return activity.destinations();
    }

    /** How long the last pass said the driver may park (0: pass again at once); for tests. */
    long nextWaitNanos() {
        synchronized (pumpLock) {
            return nextWaitNanos;
        }
    }

    /** First attempts started by their commit rather than by a pass, since this dispatcher was made. */
    long startedAtCommit() {
        return starter.started();
    }

    /** Commits that told the driver of rows they left for a pass (not claimed at the commit); for tests. */
    long commitsTold() {
        return driver.commitsTold();
    }

    private int answersQueued() {
        return recorder.queued();
    }

    /**
     * What the store calls at each commit while the driver runs (set by {@link #start()});
     * for tests that put it back after holding deliveries with a claimant of their own.
     */
    public CommitClaims commitClaims() {
        return starter;
    }

    // ================================================================ one pass

    /**
     * Runs one pass over every destination at the clock's current time and returns how
     * many attempts it started. The driver runs passes in a loop; tests call this on a
     * manual clock.
     */
    public int pump() {
        return pass().started();
    }

    /**
     * Brings each destination's failure run up to the stored disabled set, writes the
     * disables that came due (and tells of them), and tells of recoveries; returns the
     * disabled set to hold this pass. A disable that cannot be written is logged and tried
     * again next pass, the destination still sending meanwhile.
     */
    @GuardedBy("pumpLock")
    private Map<String, DisabledDestination> disableDue(long nowMs) {
        Map<String, DisabledDestination> disabled = pauses.disabledDestinations();
        Map<String, Long> failing = pauses.failingSince();
        for (Outlet outlet : outlets.values()) {
            FailureStreak streak = outlet.streak;
            streak.held(disabled.containsKey(outlet.name));
            storeRun(outlet.name, streak, failing.getOrDefault(outlet.name, DestinationPauses.NOT_FAILING), nowMs);
            DisabledDestination due = streak.disableDue(nowMs);
            if (due != null) {
                long since = streak.since();
                try {
                    pauses.setDisabled(outlet.name, due, nowMs);
                } catch (RuntimeException e) {
                    LOG.warn("disabling destination {} failed (tried again next pass): {}", outlet.name, e.toString());
                    continue;
                }
                LOG.warn("destination {} is disabled: it failed without a success for its disable_after_seconds;"
                        + " last error: {}", outlet.name, due.lastError());
                disabled = pauses.disabledDestinations();
                streak.held(true);
                events.disabled(outlet.name, due);
                auditDisable(outlet.name, due, since);
            }
            if (streak.takeRecovered()) {
                LOG.info("destination {} delivers again after it was enabled", outlet.name);
                events.recovered(outlet.name, nowMs);
            }
        }
        return disabled;
    }

    /**
     * Writes what {@link FailureStreak#toStore} asks of the stored start of {@code name}'s run
     * of failures ({@code stored} now): at most one write per destination and pass, and only
     * when the run changed.
     */
    @GuardedBy("pumpLock")
    private void storeRun(String name, FailureStreak streak, long stored, long nowMs) {
        long start = streak.toStore(stored, nowMs);
        if (start == FailureStreak.NO_WRITE) {
            return;
        }
        try {
            pauses.setFailingSince(name, start, nowMs);
            streak.stored(start);
        } catch (RuntimeException e) {
            streak.notStored();
            LOG.warn("storing the run of failures of destination {} failed (tried again next pass): {}", name, e.toString());
        }
    }

    /**
     * The audit record of a disable the dispatcher made (by {@code sluice}, see {@link DeliveryAudit}). One
     * that cannot be written is logged: the disable stands without its record (as an
     * operator's action may, when the store fails between the two).
     */
    @GuardedBy("pumpLock")
    private void auditDisable(String name, DisabledDestination disabled, long since) {
        Map<String, Object> after = DisabledDestination.auditMap(name, disabled);
        after.put("failing_since", since < 0 ? null : DisabledDestination.time(since));
        try {
            audit.record("disable", DisabledDestination.auditMap(name, null), after);
        } catch (RuntimeException e) {
            LOG.warn("the audit record of disabling destination {} was not written: {}", name, e.toString());
        }
    }

    /**
     * One pass: records the queued answers in one ledger write, then sends each
     * destination's picks. Returns how many attempts it started, how long until something
     * can start, and whether a destination was left with free slots and nothing due.
     */
    private Driver.PassEnd pass() {
        synchronized (pumpLock) {
            if (driver.stopping()) {
                return new Driver.PassEnd(0, 0, false);
            }
            long nowMs = wallMillis.getAsLong();
            Set<String> paused = pauses.pausedDestinations();
            Map<String, DisabledDestination> disabled = disableDue(nowMs);
            // the answers waiting to be recorded go in this pass's write, and their slots to its
            // picks: they stay counted until the write is over and the picks have taken theirs,
            // so a commit's claim never takes one while its answer is unrecorded
            List<AnswerRecorder.Answer> answered = recorder.takeForPass();
            Map<Outlet, Integer> answeredBy = new IdentityHashMap<>();
            for (AnswerRecorder.Answer a : answered) {
                answeredBy.merge(a.outlet(), 1, Integer::sum);
            }
            List<Outlet.Selection> selections = new ArrayList<>();
            int started = 0;
            long wait = Long.MAX_VALUE;
            boolean wantsWork = false;
            try {
                for (Outlet outlet : outlets.values()) {
                    if (driver.stopping()) {
                        break;
                    }
                    try {
                        boolean held = paused.contains(outlet.name)
                                || (!disabled.isEmpty() && disabled.containsKey(outlet.name));
                        selections.add(outlet.select(nowMs, held, answeredBy.getOrDefault(outlet, 0)));
                    } catch (RuntimeException e) {
                        LOG.warn("delivery pass for destination {} failed: {}", outlet.name, e.toString());
                        wait = Math.min(wait, Outlet.Wait.RETRY.nanos());
                    }
                }
                boolean written = recorder.recordPass(answered);
                for (Outlet.Selection sel : selections) {
                    int n = sel.outlet().sendPicks(sel, written, nowMs);
                    started += n;
                    Outlet.Wait w = sel.outlet().finish(sel, n, nowMs, !written);
                    wait = Math.min(wait, w.nanos());
                    wantsWork |= w.wantsWork();
                }
            } finally {
                answeredBy.forEach((outlet, n) -> outlet.inFlight.addAndGet(-n)); // once the picks hold their slots
                transports.flush(); // TRANSPORT: the pass's attempts start now, one hand-off per transport's thread
            }
            nextWaitNanos = answered.size() == AnswerRecorder.RECORD_BATCH ? 0 : wait;
            return new Driver.PassEnd(started, nextWaitNanos, wantsWork);
        }
    }
}

package org.sluice.edge.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.sluice.core.Clock;
import org.sluice.core.RateLimiter;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DestinationCounts;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;

/**
 * Hands pending deliveries on to their destinations: reads due rows from the
 * {@link DeliveryLedger}, sends each as one attempt through the {@link Transport} of its
 * destination's type ({@link HttpDeliveryClient} for {@code http}), and records what came back.
 *
 * <h2>One pass ({@link #pump()})</h2>
 * For each destination, at the clock's current time:
 * <ol>
 *   <li>skip it while paused ({@link DeliveryLedger#pausedDestinations()}, re-read every
 *       pass) or while {@code max_in_flight} attempts are out;</li>
 *   <li>read the rows due by now ({@link DeliveryLedger#dueBy}, a scan that never reads
 *       past now; for {@code fifo}, the heads of each (tenant, source), see
 *       {@link FifoHeads}), stepping over the rows whose attempt is out without reading them;</li>
 *   <li>a row whose hook is {@code max_age_seconds} old is dead ({@code max_age}) without
 *       an attempt;</li>
 *   <li>ask the breaker ({@link DestinationBreaker#tryPass()}) and then the pacing limiter
 *       (a {@code sluice-core} {@link RateLimiter} over the destination's {@code rate});
 *       either one saying wait ends the destination's pass, spending no attempt;</li>
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
 * a row read and three writes per attempt (see docs/benchmarks.md, "Rows held in memory").
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
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>the driver ({@code sluice-delivery-dispatcher}, started by {@link #start()}): runs a
 *       pass, then parks until the earliest time something can start (a retry it recorded,
 *       the next row of a {@code fifo} scan, breaker's open time, limiter's wait; at most
 *       {@value #MAX_PARK_MS} ms, so a row due later for another reason, such as a claim
 *       that expired, waits at most that long) or until {@link #wake()}; tests call
 *       {@link #pump()} themselves on a manual clock instead;</li>
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
 * No lock is held across a network call; the ledger's own lock is held only inside its
 * calls, and the store's commit lock is never taken. Passes are serialised by
 * {@code pumpLock}. Every time used for scheduling comes from the injected {@link Clock}
 * (monotonic: breaker, limiter, latency) and the injected wall clock (epoch ms: due
 * times, ages, {@code webhook-timestamp}), so a test drives a day of retries on a manual
 * clock. Only the attempt's own I/O timeout runs on real time (the event loop's timer).
 */
public final class Dispatcher implements DeliveryStatus, CommitClaims, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** A row claimed at its commit comes due again this long after its attempt's timeout, if its answer was never recorded. */
    static final long CLAIM_SLACK_MS = 30_000;
    /** The driver looks again at least this often (paused destinations, a store that failed). */
    static final long MAX_PARK_MS = 1_000;
    /** Extra due rows read per pass beyond the free slots (rows whose attempt is out are skipped). */
    private static final int READ_AHEAD = 16;
    /** Retry due times a destination keeps to wake the driver for (see {@code Lane.retryTimes}). */
    static final int RETRY_TIMES = 4096;
    /** Answers recorded in one ledger write at most. */
    private static final int RECORD_BATCH = 256;
    private static final Duration DEFAULT_CLOSE_GRACE = Duration.ofSeconds(5);
    /** A pass woken by answers waits for more while at least this many attempts are still out... */
    static final int GATHER_OUT = 32;
    /** ...and fewer than this many answers are queued... */
    static final int GATHER_ANSWERS = 16;
    /** ...for at most this long (real time; see "Gathering answers" above). */
    static final long GATHER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(60)
    };
    private static final Duration[] LAG_BUCKETS = {
        Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5),
        Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(12), Duration.ofDays(3)
    };

    private final HookStore store;
    private final DeliveryLedger ledger;
    private final Clock clock;
    private final LongSupplier wallMillis;
    private final RandomGenerator random;
    private final Object randomLock = new Object();
    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final Transports transports;
    private final ExecutorService answers;
    private final long closeGraceNanos;

    private final Object pumpLock = new Object();
    /** Nanoseconds from the end of the last pass until something can start; written under pumpLock. */
    private volatile long nextWaitNanos;
    private final AtomicBoolean woken = new AtomicBoolean();
    /** Commits that scheduled deliveries, counted by {@link #scheduled()}. */
    private final AtomicLong commits = new AtomicLong();
    /** The driver is parked (or about to) with a destination that could start attempts now: commits wake it. */
    private volatile boolean wantsWork;
    /** Whether the last pass left a destination with free slots and nothing due; written under pumpLock. */
    private volatile boolean laneWantsWork;
    private volatile boolean stopping;
    /** Held (read) while an answer is recorded; close takes it (write) to stop recording. */
    private final ReentrantReadWriteLock recording = new ReentrantReadWriteLock();
    private boolean closed; // guarded by recording's write lock (read under its read lock)
    /** Answers judged and waiting to be written; drained by one answer thread at a time (see {@link #recordAnswers()}). */
    private final ConcurrentLinkedQueue<Answer> toRecord = new ConcurrentLinkedQueue<>();
    /** Size of {@link #toRecord} (its own size() walks the queue). */
    private final AtomicInteger answersQueued = new AtomicInteger();
    /** First attempts started by their commit ({@link #committed}), over every destination. */
    private final AtomicLong startedAtCommit = new AtomicLong();
    /** Attempts started and not yet answered, over every destination. */
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final Object idle = new Object();
    private int outstanding; // guarded by idle: attempts started and not yet fully handled
    private volatile Thread driver;

    /**
     * A dispatcher for {@code destinations} over {@code store}'s ledger. Nothing is sent
     * until {@link #start()} (or a test's {@link #pump()}).
     *
     * @param clock      monotonic time: breaker, pacing, latency
     * @param wallMillis epoch milliseconds, the store's wall clock: due times and ages
     * @param registry   where the {@code sluice_delivery_*} meters go
     * @param random     the jitter of retry waits
     */
    public Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
                      MeterRegistry registry, RandomGenerator random) {
        this(destinations, store, clock, wallMillis, registry, random, DEFAULT_CLOSE_GRACE, null);
    }

    /**
     * As {@link #Dispatcher(List, HookStore, Clock, LongSupplier, MeterRegistry, RandomGenerator)},
     * with the HTTP client on borrowed event loops ({@code httpLoops}, e.g. the server's
     * ingest loops; null: loops of its own). Close this dispatcher before their owner shuts
     * them down, or its attempts out end as {@code client closed} instead of with their answers.
     */
    public Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
                      MeterRegistry registry, RandomGenerator random, ClientLoops httpLoops) {
        this(destinations, store, clock, wallMillis, registry, random, DEFAULT_CLOSE_GRACE, httpLoops);
    }

    Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
               MeterRegistry registry, RandomGenerator random, Duration closeGrace) {
        this(destinations, store, clock, wallMillis, registry, random, closeGrace, null);
    }

    Dispatcher(List<Destination> destinations, HookStore store, Clock clock, LongSupplier wallMillis,
               MeterRegistry registry, RandomGenerator random, Duration closeGrace, ClientLoops httpLoops) {
        this.store = store;
        this.ledger = store.deliveries();
        this.clock = clock;
        this.wallMillis = wallMillis;
        this.random = random;
        this.closeGraceNanos = closeGrace.toNanos();
        InstantSource wall = () -> Instant.ofEpochMilli(wallMillis.getAsLong());
        if (destinations.stream().map(Destination::name).distinct().count() != destinations.size()) {
            throw new IllegalArgumentException("a destination is configured twice: " + destinations);
        }
        this.transports = new Transports(destinations, wall, httpLoops);
        for (Destination d : destinations) {
            lanes.put(d.name(), new Lane(d, registry, transports.of(d)));
        }
        AtomicInteger threads = new AtomicInteger();
        this.answers = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "sluice-delivery-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    // ================================================================ lifecycle

    /** Starts the driver thread. */
    public synchronized void start() {
        if (driver != null || stopping) {
            return;
        }
        driver = new Thread(this::drive, "sluice-delivery-dispatcher");
        driver.setDaemon(true);
        driver.start();
        try {
            ledger.pausedDestinations(); // read once now: claims at commit know the paused set only from memory
        } catch (RuntimeException e) { // the store is failing: until a pass reads it, every delivery goes through the scan
            LOG.warn("reading the paused destinations failed: {}", e.toString());
        }
        store.setCommitClaims(this);
    }

    /**
     * Something may have become due (a commit with destinations, a redelivery, a resume):
     * the driver runs a pass soon. Cheap and non-blocking; callable from any thread,
     * event loops included.
     */
    public void wake() {
        if (woken.getAndSet(true)) {
            return; // a wake is already pending: the driver runs a pass before it parks again
        }
        Thread d = driver;
        if (d != null) {
            LockSupport.unpark(d);
        }
    }

    /**
     * A commit scheduled deliveries. Wakes the driver only when a destination could start
     * an attempt for them now: one whose last pass ended with free slots and nothing due
     * (not paused, not held by its breaker or limiter, not full). Under load, when every
     * slot is out, commits cost the driver nothing: an answer wakes it, and its next pass
     * reads the new rows. Cheap and non-blocking; called by the intake's writers.
     *
     * <p>No wake-up is lost: this counts the commit before it reads {@code wantsWork}, and
     * the driver sets {@code wantsWork} before it reads the count (both volatile), so
     * either this sees the flag and wakes it, or the driver sees a commit made since its
     * pass began and passes again instead of parking.
     */
    public void scheduled() {
        commits.incrementAndGet();
        if (wantsWork) {
            wake();
        }
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
        Thread d;
        synchronized (this) {
            stopping = true;
            d = driver;
        }
        store.setCommitClaims(null);
        if (d != null) {
            LockSupport.unpark(d);
            try {
                d.join(TimeUnit.NANOSECONDS.toMillis(closeGraceNanos) + 1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        recordAnswers(); // answers the driver left queued; from now on the answer threads record their own
        synchronized (pumpLock) { // no pass is running or will start attempts after this
            awaitIdle(Duration.ofNanos(closeGraceNanos));
        }
        recording.writeLock().lock();
        try {
            closed = true;
        } finally {
            recording.writeLock().unlock();
        }
        transports.close();
        answers.shutdown();
        try {
            answers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until no attempt is out (each answered and recorded), at most {@code timeout}
     * of real time. Returns true when idle.
     */
    boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (outstanding > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(idle, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private void drive() {
        while (!stopping) {
            long wait;
            gather();
            long commitsBefore = commits.get();
            boolean idleLane = false;
            try {
                pump();
                wait = nextWaitNanos;
                idleLane = laneWantsWork;
            } catch (RuntimeException e) {
                LOG.warn("a delivery pass failed; trying again in {} ms: {}", MAX_PARK_MS, e.toString());
                wait = TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS);
            }
            if (idleLane) {
                wantsWork = true; // before reading the count: see scheduled()
                if (commits.get() != commitsBefore) {
                    wantsWork = false;
                    continue; // a commit since the pass began may not have been seen by its scans
                }
            }
            if (!woken.getAndSet(false) && wait > 0 && !stopping) {
                LockSupport.parkNanos(this, Math.min(wait, TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS)));
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
        if (unanswered.get() < GATHER_OUT || answersQueued.get() >= GATHER_ANSWERS) {
            return;
        }
        woken.set(true); // wake() from answers is a no-op until the pass
        LockSupport.parkNanos(this, GATHER_NANOS);
        woken.set(false); // an answer queued from now on is polled by the pass or wakes the next one
    }

    // ================================================================ first attempts at commit

    /**
     * Under the store's commit lock, for a new hook: claims its delivery to
     * {@code destination} so that the first attempt starts as soon as the commit is durable
     * ({@link #committed}), when the driver runs and the destination is not {@code fifo},
     * not paused, its breaker closed, its pacing allows an attempt now, and it has a slot
     * free beyond the ones kept for the due scan (a quarter of {@code max_in_flight}, at
     * least one), so that rows already due (retries, an older backlog) are never starved by
     * new ones. The slot, the breaker's pass and the pacing token are taken here.
     */
    @Override
    public long claim(String destination, long nowMillis) {
        if (stopping || driver == null) {
            return -1; // with no driver (a test pumping by hand) every delivery goes through the scan
        }
        Lane lane = lanes.get(destination);
        if (lane == null || lane.fifo != null || ledger.mayBePaused(destination)) {
            return -1;
        }
        return lane.claimAtCommit(nowMillis);
    }

    /**
     * After the commit's write: starts the claimed first attempts (one hand-off to each
     * transport's thread for them all), or gives their slots back when the write failed.
     * Runs on the committing thread; sending only queues, it never waits for the network.
     */
    @Override
    public void committed(List<CommitClaims.Claimed> claimed, boolean written) {
        long nowMs = wallMillis.getAsLong();
        try {
            for (CommitClaims.Claimed c : claimed) {
                Lane lane = lanes.get(c.row().destination());
                if (written) {
                    lane.sendClaimedAtCommit(c.row(), c.hook(), c.seq(), c.writes(), nowMs);
                    startedAtCommit.incrementAndGet();
                } else {
                    lane.unclaimAtCommit();
                }
            }
        } finally {
            if (written) {
                transports.flush();
            }
        }
    }

    /** How long the last pass said the driver may park (0: pass again at once); for tests. */
    long nextWaitNanos() {
        return nextWaitNanos;
    }

    /** First attempts started by their commit rather than by a pass, since this dispatcher was made. */
    long startedAtCommit() {
        return startedAtCommit.get();
    }

    // ================================================================ one pass

    /**
     * Runs one pass over every destination at the clock's current time and returns how
     * many attempts it started. The driver calls it in a loop; tests call it on a manual
     * clock.
     */
    public int pump() {
        synchronized (pumpLock) {
            if (stopping) {
                return 0;
            }
            long nowMs = wallMillis.getAsLong();
            Set<String> paused = ledger.pausedDestinations();
            // the answers waiting to be recorded go in this pass's write, and their slots to its
            // picks: they stay counted until the write is over and the picks have taken theirs,
            // so a commit's claim never takes one while its answer is unrecorded
            List<Answer> answered = new ArrayList<>();
            for (Answer a; answered.size() < RECORD_BATCH && (a = toRecord.poll()) != null; ) {
                answersQueued.decrementAndGet();
                answered.add(a);
                a.lane().answeredThisPass++;
            }
            List<Selection> selections = new ArrayList<>();
            int started = 0;
            try {
                for (Lane lane : lanes.values()) {
                    if (stopping) {
                        break;
                    }
                    try {
                        selections.add(lane.select(nowMs, paused.contains(lane.name)));
                    } catch (RuntimeException e) {
                        LOG.warn("delivery pass for destination {} failed: {}", lane.name, e.toString());
                        lane.waitNanos = TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS);
                        lane.wantsWork = false;
                    }
                }
                boolean written = recordPass(answered, nowMs);
                for (Selection sel : selections) {
                    int n = sel.lane().sendPicks(sel, written, nowMs);
                    started += n;
                    sel.lane().finish(sel, n, nowMs, !written);
                }
            } finally {
                for (Lane lane : lanes.values()) { // the answers' slots, once the picks hold theirs
                    lane.inFlight.addAndGet(-lane.answeredThisPass);
                    lane.answeredThisPass = 0;
                }
                transports.flush(); // the pass's attempts start now: one hand-off per transport's thread
            }
            long wait = Long.MAX_VALUE;
            boolean wantWork = false;
            for (Lane lane : lanes.values()) {
                wait = Math.min(wait, lane.waitNanos);
                wantWork |= lane.wantsWork;
            }
            laneWantsWork = wantWork;
            nextWaitNanos = answered.size() == RECORD_BATCH ? 0 : wait;
            return started;
        }
    }

    /**
     * One ledger write: the outcomes of {@code answered}, so that an attempt's slot is counted
     * until the write that records its outcome. Returns false when the write failed (then
     * nothing applied; the answers' rows stay pending, due again at once, and the pass sends
     * nothing: a store that fails its writes would only have its attempts sent again), true
     * when it succeeded or there was nothing to write.
     */
    private boolean recordPass(List<Answer> answered, long nowMs) {
        if (answered.isEmpty()) {
            return true;
        }
        List<DeliveryLedger.Transition> transitions = new ArrayList<>(answered.size());
        for (Answer a : answered) {
            transitions.add(a.lane().transition(a));
        }
        boolean[] applied = null;
        try {
            applied = ledger.apply(transitions);
            for (int i = 0; i < answered.size(); i++) {
                if (applied[i]) {
                    answered.get(i).lane().recorded(answered.get(i));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("recording {} answers failed (the deliveries stay pending): {}", answered.size(), e.toString());
        } finally {
            for (int i = 0; i < answered.size(); i++) {
                Answer a = answered.get(i);
                a.lane().releaseAnswered(a, applied != null && applied[i]);
            }
        }
        return applied != null;
    }

    // ================================================================ status

    @Override
    public Optional<DestinationLive> live(String destination) {
        Lane lane = lanes.get(destination);
        if (lane == null) {
            return Optional.empty();
        }
        // during a pass the slot count also holds the answers just recorded, until the pass's picks
        // have taken their slots over: those attempts are over, and never more than max_in_flight are out
        int inFlight = Math.min(lane.inFlight.get(), lane.destination.maxInFlight());
        return Optional.of(new DestinationLive(inFlight, lane.breakerHolding(), lane.delivered.get(), lane.failed.get()));
    }

    /** The configured destinations, in configuration order. */
    public List<Destination> destinations() {
        List<Destination> out = new ArrayList<>();
        lanes.values().forEach(l -> out.add(l.destination));
        return out;
    }

    private Decision decide(RetryPolicy policy, int attempt, AttemptResult result, long ageMillis) {
        synchronized (randomLock) { // the generator need not be thread-safe
            return policy.decide(attempt, result, ageMillis, random);
        }
    }

    // ================================================================ one destination

    /** The state of one destination: its breaker, pacing, attempts out, counters and meters. */
    private final class Lane {
        final Destination destination;
        final String name;
        final DestinationBreaker breaker;
        final RateLimiter limiter;
        final Transport transport;
        final FifoHeads fifo;
        final AtomicInteger inFlight = new AtomicInteger();
        /** Answers this pass records, whose slots its picks may take over; under pumpLock. */
        int answeredThisPass;
        /**
         * Hooks whose attempt to this destination is out, by hook id: a fifo head's (a fifo
         * scan has no sequence numbers). Never read twice.
         */
        final Set<String> out = ConcurrentHashMap.newKeySet();
        /**
         * The same by commit sequence number, for every other row (every row of a non-fifo
         * destination has one): the due scan's held rows. A row is in one of the two sets,
         * never both ({@link #isOut}).
         */
        final Set<Long> outSeqs = ConcurrentHashMap.newKeySet();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final Counter attemptsDelivered;
        final Counter attemptsRetry;
        final Counter attemptsDead;
        final Timer latency;
        final Timer lag;
        /** Written by pass (under pumpLock). */
        long waitNanos;
        /**
         * The due times (epoch ms) of the retries recorded and not yet come due: when the
         * driver wakes for them. At most {@value #RETRY_TIMES} are kept (the latest are
         * dropped; a pass finds those within {@value #MAX_PARK_MS} ms of their time). Written
         * where answers are recorded (the driver, or the answer executor when no driver
         * runs), read by the driver; guarded by itself.
         */
        private final TreeSet<Long> retryTimes = new TreeSet<>();
        /** The last pass left free slots and nothing due now (a commit may give it work); under pumpLock. */
        boolean wantsWork;

        Lane(Destination d, MeterRegistry registry, Transport transport) {
            this.destination = d;
            this.name = d.name();
            this.breaker = new DestinationBreaker(d.breaker(), clock);
            this.limiter = d.rate().map(l -> RateLimiter.builder().limit(l).clock(clock).sweepInterval(Duration.ZERO).build())
                    .orElse(null);
            this.fifo = d.ordering() == Ordering.FIFO ? new FifoHeads(ledger, store, name) : null;
            this.transport = transport;
            this.attemptsDelivered = attempts(registry, "delivered");
            this.attemptsRetry = attempts(registry, "retry");
            this.attemptsDead = attempts(registry, "dead");
            this.latency = Timer.builder("sluice.delivery.latency")
                    .description("Round trip of one delivery attempt, connect included")
                    .tag("destination", name).serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
            this.lag = Timer.builder("sluice.delivery.lag")
                    .description("From a hook's receipt to its delivery")
                    .tag("destination", name).serviceLevelObjectives(LAG_BUCKETS).register(registry);
            Gauge.builder("sluice.delivery.pending", this, l -> l.counts().map(c -> (double) c.pending()).orElse(Double.NaN))
                    .description("Deliveries to the destination not yet delivered nor dead")
                    .tag("destination", name).strongReference(true).register(registry);
            Gauge.builder("sluice.delivery.dead", this, l -> l.counts().map(c -> (double) c.dead()).orElse(Double.NaN))
                    .description("Dead letters to the destination kept in the store")
                    .tag("destination", name).strongReference(true).register(registry);
            Gauge.builder("sluice.delivery.oldest.pending", this,
                            l -> l.counts().map(c -> c.oldestPendingAgeMillis() / 1000.0).orElse(Double.NaN))
                    .description("Age of the oldest hook with a pending delivery to the destination")
                    .baseUnit("seconds").tag("destination", name).strongReference(true).register(registry);
            Gauge.builder("sluice.delivery.breaker.open", this, l -> l.breakerHolding() ? 1 : 0)
                    .description("1 while the destination's breaker holds attempts back")
                    .tag("destination", name).strongReference(true).register(registry);
        }

        private Counter attempts(MeterRegistry registry, String outcome) {
            return Counter.builder("sluice.delivery.attempts")
                    .description("Delivery attempts, by what became of the delivery")
                    .tag("destination", name).tag("outcome", outcome).register(registry);
        }

        Optional<DestinationCounts> counts() {
            try {
                return store.isOpen() ? Optional.of(ledger.counts(name, wallMillis.getAsLong())) : Optional.empty();
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }

        boolean breakerHolding() {
            return breaker.state() != DestinationBreaker.State.CLOSED;
        }

        /**
         * The first half of this destination's pass: picks the rows to send (breaker and
         * limiter asked); {@link #finish} sets {@link #waitNanos}.
         * Under pumpLock.
         */
        Selection select(long nowMs, boolean paused) {
            if (paused) {
                return Selection.held(this, TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS));
            }
            int free = destination.maxInFlight() - inFlight.get() + answeredThisPass;
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
            int finished = 0;
            List<Pick> picks = new ArrayList<>();
            long heldNanos = -1; // >= 0: the breaker or the limiter ended the pass, wait this long
            for (int r = 0; r < rows.size(); r++) {
                DeliveryRow row = rows.get(r);
                if (picks.size() >= free || stopping) {
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
                if (destination.retry().expired(nowMs - hook.receivedAtMillis())) {
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
                if (limiter != null) {
                    long w = limiter.tryAcquire(name);
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
         * destination, whose limiter may let a pass send far fewer than it has slots for
         * (read ahead, the others would be read again on every pass), and while the breaker
         * is not closed (a pass then sends one probe at most).
         */
        private StoredHook[] readAhead(List<DeliveryRow> rows, long[] seqs, int free) {
            if (seqs == null || limiter != null || rows.size() < 2 || breaker.state() != DestinationBreaker.State.CLOSED) {
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

        /** See {@link Dispatcher#claim}: the claim's expiry, or -1 (nothing taken). */
        long claimAtCommit(long nowMs) {
            int limit = destination.maxInFlight() - Math.max(1, destination.maxInFlight() / 4);
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
            if (limiter != null && limiter.tryAcquire(name) > 0) {
                inFlight.decrementAndGet();
                return -1;
            }
            return nowMs + destination.timeoutMs() + CLAIM_SLACK_MS;
        }

        /** The commit holding a claim taken by {@link #claimAtCommit} was not written. */
        void unclaimAtCommit() {
            inFlight.decrementAndGet();
            wake(); // a slot is free again
        }

        /** Starts the first attempt of a delivery claimed at its commit (its slot is taken). */
        void sendClaimedAtCommit(DeliveryRow row, StoredHook hook, long seq, long writes, long nowMs) {
            start(row, hook, DestinationBreaker.Pass.ATTEMPT, seq, writes, nowMs);
        }

        /**
         * Sends the picks of {@code sel} when the pass's write went through ({@code written});
         * otherwise each gives its breaker pass back.
         */
        int sendPicks(Selection sel, boolean written, long nowMs) {
            for (Pick p : sel.picks()) {
                if (written) {
                    send(p.row(), p.hook(), p.pass(), p.seq(), p.writes(), nowMs);
                } else {
                    breaker.abandoned(p.pass());
                }
            }
            return written ? sel.picks().size() : 0;
        }

        /** Sets {@link #waitNanos} after {@code sel}'s sends: {@code started} attempts began. */
        void finish(Selection sel, int started, long nowMs, boolean writeFailed) {
            wantsWork = false;
            if (writeFailed) {
                waitNanos = TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS);
                return;
            }
            if (sel.heldNanos() >= 0) {
                boolean probeLost = sel.heldNanos() == Long.MAX_VALUE && !sel.picks().isEmpty() && started == 0;
                waitNanos = probeLost ? 0 : sel.heldNanos(); // a probe not sent was abandoned: look again
                return;
            }
            long nextDue = sel.nextDue();
            boolean moreDueNow = fifo != null ? sel.read() >= sel.limit() : nextDue >= 0 && nextDue <= nowMs;
            if (started >= sel.free()) {
                waitNanos = Long.MAX_VALUE;
            } else if ((started > 0 || sel.finished() > 0) && moreDueNow) {
                waitNanos = 0; // more may be due now
            } else {
                long next;
                if (fifo != null) {
                    next = nextDue; // the heads' scan saw the first entry after the rows it read
                } else {
                    // the scan stops at now (see DeliveryLedger#dueBy): the next row this lane
                    // knows of is its own earliest retry; the rest (a commit claim's expiry, a row an
                    // operator scheduled) is found by a pass within MAX_PARK_MS, and commits
                    // and answers wake the driver themselves
                    next = nextRetryAfter(nowMs);
                }
                waitNanos = next < 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(Math.max(1, next - nowMs));
                wantsWork = true;
            }
        }

        private void retryAt(long dueMs) {
            synchronized (retryTimes) {
                retryTimes.add(dueMs);
                if (retryTimes.size() > RETRY_TIMES) {
                    retryTimes.pollLast();
                }
            }
        }

        /** The earliest retry due after {@code nowMs}, or -1; forgets those due by then (this pass's scan saw them). */
        private long nextRetryAfter(long nowMs) {
            synchronized (retryTimes) {
                retryTimes.headSet(nowMs, true).clear();
                return retryTimes.isEmpty() ? -1 : retryTimes.first();
            }
        }

        private void send(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes,
                          long nowMs) {
            inFlight.incrementAndGet();
            start(row, hook, pass, seq, writes, nowMs);
        }

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
            unanswered.incrementAndGet();
            synchronized (idle) {
                outstanding++;
            }
            long startNanos = clock.nanoTime();
            // judged on the thread that completes the attempt (the transport's own, e.g. the
            // HTTP client's event loop): a few arithmetic steps and a queue, no I/O, no hand-off
            transport.send(destination, hook, attempt, nowMs).whenComplete((o, e) -> {
                unanswered.decrementAndGet();
                if (o != null) {
                    answered(row, hook, pass, seq, writes, startNanos, o);
                } else { // transports never fail their futures; if one did, the row stays pending, due again
                    release(row, seq);
                }
            });
        }

        /**
         * On the thread that completed the attempt: judges the answer, tells the breaker, and
         * queues it to be recorded by the driver's next pass (or, with no driver, by the
         * answer executor).
         */
        private void answered(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes,
                              long startNanos, Transport.Outcome outcome) {
            Answer answer;
            try {
                long nowMs = wallMillis.getAsLong();
                latency.record(Math.max(0, clock.nanoTime() - startNanos), TimeUnit.NANOSECONDS);
                AttemptResult result = outcome.result();
                Integer status = result instanceof AttemptResult.Answered a ? a.status() : null;
                int attempt = row.nextAttemptNumber();
                Decision decision = decide(destination.retry(), attempt, result, nowMs - hook.receivedAtMillis());
                if (decision instanceof Decision.Delivered) {
                    breaker.succeeded(pass);
                } else {
                    breaker.failed(pass);
                    failed.incrementAndGet();
                }
                answer = new Answer(this, row, seq, writes, hook, decision, status, outcome.error(), nowMs);
            } catch (RuntimeException e) {
                try (MDC.MDCCloseable inMdc = MDC.putCloseable("hook_id", row.hookId())) {
                    LOG.warn("judging the answer of hook {} from destination {} failed (the delivery stays pending): {}",
                            row.hookId(), name, e.toString());
                }
                release(row, seq);
                return;
            }
            answersQueued.incrementAndGet();
            toRecord.add(answer);
            if (driver == null || stopping) {
                recordOffThisThread(); // no pass will come for it (a test pumping by hand, or closing)
            } else {
                wake(); // the next pass records it
            }
        }

        /**
         * The transition that records {@code a}; for a row read with the ledger's write count
         * (not a fifo head), marked as seen exactly: the row is held from its read to this
         * record, so no transition of this dispatcher can have changed it meanwhile.
         */
        private DeliveryLedger.Transition transition(Answer a) {
            DeliveryLedger.Transition t;
            if (a.decision() instanceof Decision.Retry r) {
                t = DeliveryLedger.Transition.attempt(a.row(), a.status(), a.error(), a.nowMs() + r.delayMillis(), a.nowMs());
            } else if (a.decision() instanceof Decision.Dead dead) {
                t = DeliveryLedger.Transition.dead(a.row(), dead.reason().code(), true, a.status(), a.error(), a.nowMs());
            } else {
                t = DeliveryLedger.Transition.delivered(a.row(), a.status(), a.nowMs());
            }
            return a.seq() >= 0 && a.writes() >= 0 ? t.seenAt(a.seq(), a.writes()) : t;
        }

        /** After {@code a}'s transition was written: counters, meters, fifo. */
        private void recorded(Answer a) {
            if (a.decision() instanceof Decision.Delivered) {
                delivered.incrementAndGet();
                attemptsDelivered.increment();
                lag.record(Math.max(0, a.nowMs() - a.hook().receivedAtMillis()), TimeUnit.MILLISECONDS);
            } else if (a.decision() instanceof Decision.Retry r) {
                attemptsRetry.increment();
                if (fifo == null) { // a fifo scan reads its next due time itself
                    retryAt(a.nowMs() + r.delayMillis());
                }
                return;
            } else {
                attemptsDead.increment();
                logDead(a, (Decision.Dead) a.decision());
            }
            if (fifo != null) {
                fifo.finished(a.row().hookId());
            }
        }

        /** Whether the attempt of {@code row} ({@code seq}: its sequence number, -1 for a fifo head) is out. */
        private boolean isOut(DeliveryRow row, long seq) {
            return seq >= 0 ? outSeqs.contains(seq) : out.contains(row.hookId());
        }

        /** The attempt ended without its answer being queued for recording. */
        private void release(DeliveryRow row, long seq) {
            inFlight.decrementAndGet();
            releaseQuietly(row, seq, row.nextAttemptAtMillis());
            wake();
        }

        /**
         * After {@code a}'s write: its row may be read again. {@code applied}: its transition
         * was written (a delivered or dead row has no due entry left; a retry's entry is at
         * its new due time); else the row is as it was, due at its old time, or an operator's
         * redelivery replaced it with one due by now.
         */
        private void releaseAnswered(Answer a, boolean applied) {
            long dueAgain;
            if (!applied) {
                dueAgain = Math.min(a.row().nextAttemptAtMillis(), wallMillis.getAsLong());
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
            synchronized (idle) {
                outstanding--;
                idle.notifyAll();
            }
        }
    }

    // ================================================================ recording answers

    /** A row picked in a pass, to be sent after the pass's write; {@code seq} its hook's sequence number (-1: fifo). */
    private record Pick(DeliveryRow row, StoredHook hook, DestinationBreaker.Pass pass, long seq, long writes) {
    }

    /**
     * What one destination's pass picked and read, between {@link Lane#select} and
     * {@link Lane#finish}: {@code free} slots, {@code read} rows of a {@code limit}, the
     * due time after them, rows {@code finished} without an attempt, and {@code heldNanos}
     * when the breaker or limiter ended the pass (else -1).
     */
    private record Selection(Lane lane, List<Pick> picks, int free, int read, int limit, long nextDue, int finished,
                             long heldNanos) {
        static Selection held(Lane lane, long nanos) {
            return new Selection(lane, List.of(), 0, 0, 0, -1, 0, nanos);
        }
    }

    /** An answer judged and waiting to be written to the ledger. */
    private record Answer(Lane lane, DeliveryRow row, long seq, long writes, StoredHook hook, Decision decision,
                          Integer status, String error, long nowMs) {
    }

    /**
     * Writes the queued answers, up to {@value #RECORD_BATCH} per ledger write, on the
     * calling answer thread unless another one is already at it (that one then takes them
     * too: it looks at the queue again after letting go). A ledger write waits for the
     * store's fsync in progress, so answers that arrive during one write share the next,
     * and the driver is woken once per write rather than once per answer.
     */
    private void recordAnswers() {
        while (!toRecord.isEmpty() && draining.compareAndSet(false, true)) {
            try {
                List<Answer> batch = new ArrayList<>();
                for (Answer a; batch.size() < RECORD_BATCH && (a = toRecord.poll()) != null; ) {
                    answersQueued.decrementAndGet();
                    batch.add(a);
                }
                record(batch);
            } finally {
                draining.set(false);
            }
        }
    }

    /**
     * Records the queued answers on the answer executor: the caller may be a transport's
     * event loop, which must not wait for a ledger write. Inline only when the executor
     * has been shut down (the dispatcher is closing).
     */
    private void recordOffThisThread() {
        try {
            answers.execute(this::recordAnswers);
        } catch (RejectedExecutionException e) {
            recordAnswers();
        }
    }

    private void record(List<Answer> batch) {
        boolean[] applied = null;
        recording.readLock().lock();
        try {
            if (closed) {
                return; // the store may be closing; the rows stay pending and come due again
            }
            List<DeliveryLedger.Transition> transitions = new ArrayList<>(batch.size());
            for (Answer a : batch) {
                transitions.add(a.lane().transition(a));
            }
            applied = ledger.apply(transitions);
            for (int i = 0; i < batch.size(); i++) {
                if (applied[i]) {
                    batch.get(i).lane().recorded(batch.get(i));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("recording {} answers (hook {} from destination {} first) failed (the deliveries stay pending): {}",
                    batch.size(), batch.get(0).row().hookId(), batch.get(0).lane().name, e.toString());
        } finally {
            recording.readLock().unlock();
            for (int i = 0; i < batch.size(); i++) {
                Answer a = batch.get(i);
                a.lane().inFlight.decrementAndGet();
                a.lane().releaseAnswered(a, applied != null && applied[i]);
            }
            wake();
        }
    }

    /** One line per dead letter (rare: not a line per attempt), with the hook's id in the MDC ({@code hook_id}). */
    private static void logDead(Answer a, Decision.Dead dead) {
        try (MDC.MDCCloseable inMdc = MDC.putCloseable("hook_id", a.row().hookId())) {
            LOG.info("hook {} is dead at destination {} ({}) after attempt {}{}", a.row().hookId(), a.lane().name,
                    dead.reason().code(), a.row().nextAttemptNumber(),
                    a.status() != null ? ", answered " + a.status() : a.error() != null ? ": " + a.error() : "");
        }
    }
}

package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.core.Gcra;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryScan;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.ReplaySource;
import org.sluice.edge.store.ReplayStream;
import org.sluice.edge.threads.Threads;

/**
 * Paced replays: {@code POST /v1/destinations/{name}/replay} schedules a fresh delivery to
 * one destination of every hook committed in a time range that has a row for it (or only
 * of those whose row is dead), at most {@code rate} per second.
 *
 * <h2>How a replay runs</h2>
 * <ol>
 *   <li>{@link #start} counts the matching hooks on the caller's thread
 *       ({@link ReplaySource#count}; on the RocksDB store a walk over the range with
 *       {@link DeliveryScan}, one page of {@link #PAGE} hooks at a time, nothing kept but the
 *       count), registers the replay and hands it to the replay threads;</li>
 *   <li>a replay thread walks the range again ({@link ReplaySource#schedule}; on the RocksDB
 *       store page by page, redelivering each matching hook to the destination with
 *       {@code DeliveryLedger.redeliver}, fsynced; on the fleet's log, {@code store.kind:
 *       kafka}, a reader of the hooks topic that copies each hook into the node's working
 *       set, or for {@code dead_only} a redelivery of each of the fleet's dead letters of the
 *       range through the retry topic: docs/fleet-log.md, "Replays"), each hook first admitted by a GCRA bucket of {@code rate} per second with a burst of one second's
 *       worth ({@code rate}), on the injected {@link Clock}. While the bucket refuses, the
 *       thread parks for the bucket's wait, at most {@link #MAX_PARK_NANOS}, and asks again
 *       (so on a manual clock it sees time move within that bound);</li>
 *   <li>when the walk ends the replay is {@code done}. Its {@code delivered} and
 *       {@code dead} figures are counters kept per replay: {@link #get} recounts them (a
 *       walk over the range counting the rows to the destination scheduled since the replay
 *       started that are now delivered or dead) at most once every {@link #RECOUNT_NANOS}
 *       of the injected clock, and answers the kept figures in between; once the replay is
 *       done and every row it scheduled is delivered or dead, the figures are final and never
 *       walked for again (issue 46, point 7: each poll used to walk the whole range, and the
 *       console polls every 500 ms).</li>
 * </ol>
 * The range ends no later than the moment the replay starts, so hooks accepted meanwhile
 * are not in it and the count of {@link #start} is what the walk schedules, unless rows
 * change between the two walks (a dead letter redelivered by hand, retention).
 *
 * <h2>Memory and threads</h2>
 * The newest {@link #KEPT} replays are remembered; starting one more forgets the oldest
 * finished one, and is refused ({@link TooManyReplays}) when all of them are still running,
 * or when {@link #MAX_RUNNING_PER_DESTINATION} replays to the same destination still run.
 * A range wider than {@link #MAX_RANGE_MILLIS} (31 days, after its end is brought back to
 * now) is refused ({@link RangeTooWide}) unless forced: the count of {@link #start} and each
 * recount walk the whole range.
 * {@link #THREADS} replay threads (daemons, {@code sluice-replay-N}); further replays wait
 * for one, {@code running} meanwhile. {@link #close} stops them (a replay stopped half way
 * stays as far as it got). Thread-safe.
 */
public final class Replays implements AutoCloseable {

    /** Replays remembered. */
    public static final int KEPT = 100;
    /**
     * Largest {@code rate}, replays per second. A pace, not a queue: what a replay has
     * scheduled and not yet delivered is bounded by its source (on the fleet's log, at most
     * {@code LogReplay.MAX_WAITING} copies waiting in the working set), so a rate above what
     * the node can deliver only lets it go as fast as it can. It was 10,000 until issue 45:
     * a replay of the fleet's log to a Kafka destination could go faster than that.
     */
    public static final int MAX_RATE = 1_000_000;
    /** Hooks examined per step of a walk. */
    static final int PAGE = 256;
    /** Threads running replays at once. */
    static final int THREADS = 2;
    /** Replays to one destination running (or waiting for a thread) at once. */
    public static final int MAX_RUNNING_PER_DESTINATION = 2;
    /** The widest range a replay takes without {@code force}: 31 days. */
    public static final long MAX_RANGE_MILLIS = TimeUnit.DAYS.toMillis(31);
    /** Least time between two recounts of one replay's figures ({@link #get}): one second. */
    static final long RECOUNT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Longest park while the bucket refuses: 50 ms. */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final Logger LOG = LoggerFactory.getLogger(Replays.class);

    /** Every replay is remembered until {@link #KEPT} newer ones were started; this many still running refuses a new one. */
    public static final class TooManyReplays extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooManyReplays(String message) {
            super(message);
        }
    }

    /** A range wider than {@link #MAX_RANGE_MILLIS}, started without {@code force}. */
    public static final class RangeTooWide extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RangeTooWide(long widthMillis) {
            super("the range spans " + TimeUnit.MILLISECONDS.toDays(widthMillis) + " days, more than the "
                    + TimeUnit.MILLISECONDS.toDays(MAX_RANGE_MILLIS) + " a replay takes without \"force\": true");
        }
    }

    /**
     * What one replay has done.
     *
     * @param id          its id
     * @param destination where it replays to
     * @param running     false once its walk has ended
     * @param matched     hooks the range held when it started (what it schedules, rows unchanged)
     * @param scheduled   redeliveries made so far
     * @param delivered   rows it scheduled that are delivered now
     * @param dead        rows it scheduled that are dead now
     */
    public record Progress(String id, String destination, boolean running, long matched, long scheduled,
                           long delivered, long dead) {
    }

    private final HookStore store;
    private final ReplaySource source;
    /** A destination's direct path for one replay, or null (see {@link ReplaySource.Pacing#stream()}); null: none. */
    private final Function<String, ReplayStream> streams;
    private final Clock clock;
    private final LongSupplier wallMillis;
    private final ExecutorService threads;
    /** Insertion order: oldest first. */
    @GuardedBy("replays")
    private final Map<String, Replay> replays = new LinkedHashMap<>();

    /**
     * The hooks a replay covers: those committed in {@code [fromMillis, toMillis)} with a row
     * to {@code destination}, only dead ones when {@code deadOnly}. Each walk over them (the
     * count, the redeliveries, the progress) reads it one {@link #PAGE} at a time.
     */
    private record Span(String destination, long fromMillis, long toMillis, boolean deadOnly) {

        /** The page after {@code cursor} (null: the first) of the rows to the destination in the range. */
        DeliveryScan.Page page(HookStore store, String cursor) {
            return DeliveryScan.rows(store, destination, fromMillis, toMillis, cursor, PAGE);
        }

        boolean matches(DeliveryRow row) {
            return !deadOnly || row.state() == DeliveryState.DEAD;
        }
    }

    /**
     * The RocksDB kind's walk: the store's rows to the destination in the range
     * ({@link DeliveryScan}, one {@link #PAGE} at a time), each matching one redelivered
     * ({@code DeliveryLedger.redeliver}, fsynced); {@code count} is the rows that match.
     */
    private static final class StoreWalk implements ReplaySource {
        private final HookStore store;

        StoreWalk(HookStore store) {
            this.store = store;
        }

        @Override
        public long count(String destination, long fromMillis, long toMillis, boolean deadOnly) {
            Span span = new Span(destination, fromMillis, toMillis, deadOnly);
            long matched = 0;
            String cursor = null;
            do {
                DeliveryScan.Page page = span.page(store, cursor);
                matched += page.rows().stream().filter(span::matches).count();
                cursor = page.cursor();
            } while (cursor != null);
            return matched;
        }

        @Override
        public void schedule(String destination, long fromMillis, long toMillis, boolean deadOnly,
                             LongSupplier wallMillis, Pacing pacing) {
            Span span = new Span(destination, fromMillis, toMillis, deadOnly);
            String cursor = null;
            do {
                DeliveryScan.Page page = span.page(store, cursor);
                for (DeliveryRow row : page.rows()) {
                    if (!span.matches(row)) {
                        continue;
                    }
                    if (!pacing.admit()) {
                        return;
                    }
                    if (store.deliveries().redeliver(row.hookId(), List.of(destination), wallMillis.getAsLong()).isPresent()) {
                        pacing.scheduled(1);
                    }
                }
                cursor = page.cursor();
            } while (cursor != null);
        }
    }

    private final class Replay implements Runnable {
        final String id = UUID.randomUUID().toString();
        final Span span;
        final long startedAtMillis;
        final long matched;
        final long intervalNanos;
        final long toleranceNanos;
        final AtomicLong scheduled = new AtomicLong();
        /** Hooks it streamed that the destination acknowledged: delivered with no row to count. */
        final AtomicLong streamedDelivered = new AtomicLong();
        volatile boolean running = true;
        // the kept figures (see "How a replay runs", step 3)
        @GuardedBy("this")
        private long delivered;
        @GuardedBy("this")
        private long dead;
        @GuardedBy("this")
        private long countedAtNanos;
        @GuardedBy("this")
        private boolean counted;
        @GuardedBy("this")
        private boolean settled;

        Replay(Span span, int rate, long startedAtMillis, long matched) {
            this.span = span;
            this.startedAtMillis = startedAtMillis;
            this.matched = matched;
            this.intervalNanos = Gcra.emissionIntervalNanos(rate);
            this.toleranceNanos = Gcra.toleranceNanos(intervalNanos, rate);
        }

        @Override
        public void run() {
            long increment = Gcra.increment(intervalNanos, 1);
            long[] tat = {clock.nanoTime()};
            ReplaySource.Pacing pacing = new ReplaySource.Pacing() {
                @Override
                public boolean admit() {
                    while (true) {
                        long now = clock.nanoTime();
                        long wait = Gcra.waitNanos(tat[0], now, increment, toleranceNanos);
                        if (wait == 0) {
                            tat[0] = Gcra.admittedTat(tat[0], now, increment, toleranceNanos);
                            return true;
                        }
                        LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
                        if (Thread.currentThread().isInterrupted()) {
                            return false;
                        }
                    }
                }

                @Override
                public void scheduled(int hooks) {
                    scheduled.addAndGet(hooks);
                }

                @Override
                public ReplayStream stream() {
                    ReplayStream direct = streams == null ? null : streams.apply(span.destination());
                    return direct == null ? null : new CountedStream(direct, streamedDelivered);
                }
            };
            try {
                source.schedule(span.destination(), span.fromMillis(), span.toMillis(), span.deadOnly(),
                        wallMillis, pacing);
            } catch (RuntimeException e) {
                LOG.warn("replay {} to {} stopped after {} of {} redeliveries: {}", id, span.destination(), scheduled.get(),
                        matched, e.toString());
            } finally {
                running = false;
            }
        }

        synchronized Progress progress() {
            long now = clock.nanoTime();
            if (!settled && (!counted || now - countedAtNanos >= RECOUNT_NANOS)) {
                boolean wasRunning = running; // read before the walk: a walk after the end sees every row it scheduled
                long made = scheduled.get();
                recount();
                counted = true;
                countedAtNanos = now;
                settled = !wasRunning && delivered + streamedDelivered.get() + dead >= made;
            }
            return new Progress(id, span.destination(), running, matched, scheduled.get(),
                    delivered + streamedDelivered.get(), dead);
        }

        @GuardedBy("this")
        private void recount() {
            long delivered = 0;
            long dead = 0;
            String cursor = null;
            do {
                DeliveryScan.Page page = span.page(store, cursor);
                for (DeliveryRow row : page.rows()) {
                    if (row.scheduledAtMillis() >= startedAtMillis) {
                        delivered += row.state() == DeliveryState.DELIVERED ? 1 : 0;
                        dead += row.state() == DeliveryState.DEAD ? 1 : 0;
                    }
                }
                cursor = page.cursor();
            } while (cursor != null);
            this.delivered = delivered;
            this.dead = dead;
        }
    }

    /** A replay's stream that counts the hooks the destination acknowledged. */
    private record CountedStream(ReplayStream direct, AtomicLong delivered) implements ReplayStream {

        @Override
        public boolean open() {
            return direct.open();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> send(org.sluice.edge.store.StoredHook hook) {
            var sent = direct.send(hook);
            return sent == null ? null : sent.thenApply(ok -> {
                if (ok) {
                    delivered.incrementAndGet();
                }
                return ok;
            });
        }

        @Override
        public void flush() {
            direct.flush();
        }
    }

    /**
     * @param store      the node's store (rows are read with {@link DeliveryScan}, scheduled with its ledger)
     * @param clock      paces the replays
     * @param wallMillis the time written on redelivered rows, epoch ms
     */
    public Replays(HookStore store, Clock clock, LongSupplier wallMillis) {
        this(store, null, clock, wallMillis);
    }

    /**
     * As {@link #Replays(HookStore, Clock, LongSupplier)}, with the hooks counted and
     * scheduled by {@code source} (null: the store's rows, {@link StoreWalk}); the figures
     * of {@link #get} are still counted on {@code store}, where the fresh deliveries are.
     */
    public Replays(HookStore store, ReplaySource source, Clock clock, LongSupplier wallMillis) {
        this(store, source, null, clock, wallMillis);
    }

    /**
     * As {@link #Replays(HookStore, ReplaySource, Clock, LongSupplier)}, with each replay
     * offered {@code streams.apply(destination)} as its direct path ({@link ReplaySource.Pacing#stream()},
     * e.g. {@link Dispatcher#replayStream}; null, or null answers: none). The hooks a stream
     * delivered count in {@link Progress#delivered()} as they are acknowledged.
     */
    public Replays(HookStore store, ReplaySource source, Function<String, ReplayStream> streams, Clock clock,
                   LongSupplier wallMillis) {
        this.store = Objects.requireNonNull(store, "store");
        this.source = source != null ? source : new StoreWalk(store);
        this.streams = streams;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.threads = new ThreadPoolExecutor(THREADS, THREADS, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                Threads.numbered("sluice-replay-", 0));
    }

    /**
     * Starts a replay of the hooks committed in {@code [fromMillis, toMillis)} (the end is
     * brought back to now when later) that have a row to {@code destination}, only dead
     * ones when {@code deadOnly}, at {@code rate} per second.
     *
     * @param force lifts the bound on the range's width ({@link #MAX_RANGE_MILLIS})
     * @throws IllegalArgumentException when the range is empty or the rate is not 1 to {@link #MAX_RATE}
     * @throws RangeTooWide             when the range (its end brought back to now) is wider than
     *                                  {@link #MAX_RANGE_MILLIS} and {@code force} is false
     * @throws TooManyReplays           when {@link #KEPT} replays are still running, or
     *                                  {@link #MAX_RUNNING_PER_DESTINATION} to this destination
     */
    public Progress start(String destination, long fromMillis, long toMillis, boolean deadOnly, int rate, boolean force) {
        Objects.requireNonNull(destination, "destination");
        if (rate < 1 || rate > MAX_RATE) {
            throw new IllegalArgumentException("rate must be an integer from 1 to " + MAX_RATE + ", got " + rate);
        }
        if (fromMillis < 0 || fromMillis >= toMillis) {
            throw new IllegalArgumentException("from must be before to");
        }
        long now = wallMillis.getAsLong();
        long to = Math.min(toMillis, now);
        if (!force && to - fromMillis > MAX_RANGE_MILLIS) {
            throw new RangeTooWide(to - fromMillis);
        }
        synchronized (replays) { // checked again below, after the count: this one spares the walk
            checkRunning(destination);
        }
        Span span = new Span(destination, fromMillis, Math.max(fromMillis, to), deadOnly);
        long matched = span.fromMillis() < span.toMillis()
                ? source.count(destination, span.fromMillis(), span.toMillis(), deadOnly) : 0;
        Replay replay = new Replay(span, rate, now, matched);
        synchronized (replays) {
            checkRunning(destination);
            if (replays.size() >= KEPT) {
                Iterator<Replay> it = replays.values().iterator();
                boolean forgot = false;
                while (it.hasNext() && !forgot) {
                    if (!it.next().running) {
                        it.remove();
                        forgot = true;
                    }
                }
                if (!forgot) {
                    throw new TooManyReplays(KEPT + " replays are still running; wait for one to finish");
                }
            }
            replays.put(replay.id, replay);
        }
        threads.execute(replay);
        return new Progress(replay.id, destination, true, matched, 0, 0, 0);
    }

    @GuardedBy("replays")
    private void checkRunning(String destination) {
        int running = 0;
        for (Replay r : replays.values()) {
            if (r.running && r.span.destination().equals(destination)) {
                running++;
            }
        }
        if (running >= MAX_RUNNING_PER_DESTINATION) {
            throw new TooManyReplays(running + " replays to " + destination + " are still running (at most "
                    + MAX_RUNNING_PER_DESTINATION + " at once); wait for one to finish");
        }
    }

    /** The replay's progress (its delivered and dead figures as last counted, see the class comment), or empty when it is unknown or forgotten. */
    public Optional<Progress> get(String id) {
        Replay replay;
        synchronized (replays) {
            replay = replays.get(id);
        }
        return replay == null ? Optional.empty() : Optional.of(replay.progress());
    }

    /** Stops the replay threads (waits up to 5 s); replays stop where they are. */
    @Override
    public void close() {
        Threads.stopNow(threads, 5);
    }
}

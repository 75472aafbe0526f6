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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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

/**
 * Paced replays: {@code POST /v1/destinations/{name}/replay} schedules a fresh delivery to
 * one destination of every hook committed in a time range that has a row for it (or only
 * of those whose row is dead), at most {@code rate} per second.
 *
 * <h2>How a replay runs</h2>
 * <ol>
 *   <li>{@link #start} counts the matching hooks on the caller's thread (a walk over the
 *       range with {@link DeliveryScan}, one page of {@link #PAGE} hooks at a time, nothing
 *       kept but the count), registers the replay and hands it to the replay threads;</li>
 *   <li>a replay thread walks the range again, page by page, and redelivers each matching
 *       hook to the destination ({@code DeliveryLedger.redeliver}, fsynced), each one first
 *       admitted by a GCRA bucket of {@code rate} per second with a burst of one second's
 *       worth ({@code rate}), on the injected {@link Clock}. While the bucket refuses, the
 *       thread parks for the bucket's wait, at most {@link #MAX_PARK_NANOS}, and asks again
 *       (so on a manual clock it sees time move within that bound);</li>
 *   <li>when the walk ends the replay is {@code done}. Its {@code delivered} and
 *       {@code dead} figures are read when asked ({@link #get}): a walk over the range
 *       counting the rows to the destination scheduled since the replay started that are
 *       now delivered or dead.</li>
 * </ol>
 * The range ends no later than the moment the replay starts, so hooks accepted meanwhile
 * are not in it and the count of {@link #start} is what the walk schedules, unless rows
 * change between the two walks (a dead letter redelivered by hand, retention).
 *
 * <h2>Memory and threads</h2>
 * The newest {@link #KEPT} replays are remembered; starting one more forgets the oldest
 * finished one, and is refused ({@link TooManyReplays}) when all of them are still running.
 * {@link #THREADS} replay threads (daemons, {@code sluice-replay-N}); further replays wait
 * for one, {@code running} meanwhile. {@link #close} stops them (a replay stopped half way
 * stays as far as it got). Thread-safe.
 */
public final class Replays implements AutoCloseable {

    /** Replays remembered. */
    public static final int KEPT = 100;
    /** Largest {@code rate}, replays per second. */
    public static final int MAX_RATE = 10_000;
    /** Hooks examined per step of a walk. */
    static final int PAGE = 256;
    /** Threads running replays at once. */
    static final int THREADS = 2;
    /** Longest park while the bucket refuses: 50 ms. */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final Logger LOG = LoggerFactory.getLogger(Replays.class);

    /** Every replay is remembered until {@link #KEPT} newer ones were started; this many still running refuses a new one. */
    public static final class TooManyReplays extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooManyReplays() {
            super(KEPT + " replays are still running; wait for one to finish");
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

    private final class Replay implements Runnable {
        final String id = UUID.randomUUID().toString();
        final Span span;
        final long startedAtMillis;
        final long matched;
        final long intervalNanos;
        final long toleranceNanos;
        final AtomicLong scheduled = new AtomicLong();
        volatile boolean running = true;

        Replay(Span span, int rate, long startedAtMillis, long matched) {
            this.span = span;
            this.startedAtMillis = startedAtMillis;
            this.matched = matched;
            this.intervalNanos = Gcra.emissionIntervalNanos(rate);
            this.toleranceNanos = Gcra.toleranceNanos(intervalNanos, rate);
        }

        @Override
        public void run() {
            long tat = clock.nanoTime();
            long increment = Gcra.increment(intervalNanos, 1);
            String cursor = null;
            try {
                do {
                    DeliveryScan.Page page = span.page(store, cursor);
                    for (DeliveryRow row : page.rows()) {
                        if (!span.matches(row)) {
                            continue;
                        }
                        while (true) {
                            long now = clock.nanoTime();
                            long wait = Gcra.waitNanos(tat, now, increment, toleranceNanos);
                            if (wait == 0) {
                                tat = Gcra.admittedTat(tat, now, increment, toleranceNanos);
                                break;
                            }
                            LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
                            if (Thread.currentThread().isInterrupted()) {
                                return;
                            }
                        }
                        if (store.deliveries().redeliver(row.hookId(), List.of(span.destination()), wallMillis.getAsLong())
                                .isPresent()) {
                            scheduled.incrementAndGet();
                        }
                    }
                    cursor = page.cursor();
                } while (cursor != null);
            } catch (RuntimeException e) {
                LOG.warn("replay {} to {} stopped after {} of {} redeliveries: {}", id, span.destination(), scheduled.get(),
                        matched, e.toString());
            } finally {
                running = false;
            }
        }

        Progress progress() {
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
            return new Progress(id, span.destination(), running, matched, scheduled.get(), delivered, dead);
        }
    }

    /**
     * @param store      the node's store (rows are read with {@link DeliveryScan}, scheduled with its ledger)
     * @param clock      paces the replays
     * @param wallMillis the time written on redelivered rows, epoch ms
     */
    public Replays(HookStore store, Clock clock, LongSupplier wallMillis) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        AtomicInteger index = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(THREADS, THREADS, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                task -> {
                    Thread thread = new Thread(task, "sluice-replay-" + index.getAndIncrement());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Starts a replay of the hooks committed in {@code [fromMillis, toMillis)} (the end is
     * brought back to now when later) that have a row to {@code destination}, only dead
     * ones when {@code deadOnly}, at {@code rate} per second.
     *
     * @throws IllegalArgumentException when the range is empty or the rate is not 1 to {@link #MAX_RATE}
     * @throws TooManyReplays           when {@link #KEPT} replays are still running
     */
    public Progress start(String destination, long fromMillis, long toMillis, boolean deadOnly, int rate) {
        Objects.requireNonNull(destination, "destination");
        if (rate < 1 || rate > MAX_RATE) {
            throw new IllegalArgumentException("rate must be an integer from 1 to " + MAX_RATE + ", got " + rate);
        }
        if (fromMillis < 0 || fromMillis >= toMillis) {
            throw new IllegalArgumentException("from must be before to");
        }
        long now = wallMillis.getAsLong();
        Span span = new Span(destination, fromMillis, Math.max(fromMillis, Math.min(toMillis, now)), deadOnly);
        long matched = 0;
        if (span.fromMillis() < span.toMillis()) {
            String cursor = null;
            do {
                DeliveryScan.Page page = span.page(store, cursor);
                matched += page.rows().stream().filter(span::matches).count();
                cursor = page.cursor();
            } while (cursor != null);
        }
        Replay replay = new Replay(span, rate, now, matched);
        synchronized (replays) {
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
                    throw new TooManyReplays();
                }
            }
            replays.put(replay.id, replay);
        }
        threads.execute(replay);
        return new Progress(replay.id, destination, true, matched, 0, 0, 0);
    }

    /** The replay's progress (its delivered and dead figures read now), or empty when it is unknown or forgotten. */
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
        threads.shutdownNow();
        try {
            threads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

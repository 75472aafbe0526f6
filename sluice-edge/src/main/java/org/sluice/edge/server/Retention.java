package org.sluice.edge.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.config.RetentionConfig;
import org.sluice.edge.log.Warnings;
import org.sluice.edge.threads.Threads;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.RetentionResult;

/**
 * The retention pass and the store's size, on one thread of their own ({@code sluice-retention},
 * never an event loop, never the sweeper's: a slow compaction here must not hold up dedupe
 * sweeps or the store's resume).
 *
 * <p>Every {@value #TICK_MILLIS} ms: bounded passes of
 * {@link org.sluice.edge.store.DeliveryLedger#retentionPass} ({@value #PASS_HOOKS} hooks each),
 * with the ages of {@code retention.hooks_seconds} and {@code retention.dead_seconds} against
 * the injected wall clock. A pass that stopped at its bound is followed at once by another
 * while passes delete something (at most {@value #MAX_PASSES} per tick), or for at least
 * {@value #MIN_PASSES} passes when they delete nothing, so a long stretch of hooks that must
 * stay (pending deliveries, dead letters) is walked past at 10 000 hooks a second without
 * spinning on it. Then the store's size is read again ({@link StoreSize}). While the store
 * is at {@code store.max_bytes} and rows were deleted since the last reclaim, the space is
 * reclaimed ({@link HookStore#reclaim()}: a flush and a compaction of what was deleted, so
 * every tick; the RocksDB store compacts whole families at most once a minute) and the size
 * read once more, so ingest resumes within a tick of retention freeing the space (issue 46,
 * point 6: the reclaim used to wait a minute after the previous one). A failing store is
 * left to the sweeper's resume task.
 *
 * <p>While the store is at {@code store.max_bytes} (as the last tick read it), the passes
 * also delete delivered hooks younger than {@code retention.hooks_seconds}, oldest first
 * (issue 46, point 4), counted in {@code sluice_retention_early_deleted_total} and logged at
 * {@code INFO} once a tick.
 *
 * <p>Meters: {@code sluice_retention_deleted_total} (hooks and dead letters deleted) and
 * {@code sluice_store_bytes} (the cached size).
 */
final class Retention implements AutoCloseable {

    static final long TICK_MILLIS = 1_000L;
    /** Hooks one pass looks at. */
    static final int PASS_HOOKS = 1_000;
    /** Passes per tick at most, so a huge backlog is worked through in slices. */
    static final int MAX_PASSES = 100;
    /** Passes per tick at least (while the walk has further to go), even when they delete nothing. */
    static final int MIN_PASSES = 10;

    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);

    private final HookStore store;
    private final StoreSize size;
    private final long hooksMaxAgeMillis;
    private final long deadMaxAgeMillis;
    private final LongSupplier epochMillis;
    private final Counter deleted;
    private final Counter deletedEarly;
    private final ScheduledExecutorService scheduler;
    private final Warnings warnings = new Warnings(LOG, TimeUnit.MINUTES.toNanos(1));
    /** Rows deleted since the last reclaim. */
    @GuardedBy("this")
    private long unreclaimed;

    Retention(HookStore store, StoreSize size, RetentionConfig config, LongSupplier epochMillis,
              MeterRegistry registry) {
        this.store = store;
        this.size = size;
        this.hooksMaxAgeMillis = TimeUnit.SECONDS.toMillis(config.hooksSeconds());
        this.deadMaxAgeMillis = TimeUnit.SECONDS.toMillis(config.deadSeconds());
        this.epochMillis = epochMillis;
        this.deleted = Counter.builder("sluice.retention.deleted")
                .description("Hooks and dead letters deleted by the retention pass").register(registry);
        this.deletedEarly = Counter.builder("sluice.retention.early.deleted")
                .description("Delivered hooks deleted before retention.hooks_seconds because the store was at store.max_bytes")
                .register(registry);
        Gauge.builder("sluice.store.bytes", size, StoreSize::bytes)
                .description("Approximate size of the store (SST files and memtables), read about once a second")
                .register(registry);
        Gauge.builder("sluice.store.max.bytes", size, s -> s.maxBytes())
                .description("store.max_bytes as configured; 0 when the store is unbounded").register(registry);
        this.scheduler = Threads.daemonScheduler("sluice-retention");
        scheduler.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One tick now (tests call it; the thread does every {@value #TICK_MILLIS} ms). Serialised. */
    synchronized void tick() {
        try {
            if (store.isOpen() && store.isHealthy()) {
                RetentionResult result;
                int passes = 0;
                boolean full = size.full(); // as of the last tick: a full store drains its delivered hooks early
                long early = 0;
                do {
                    result = store.deliveries().retentionPass(epochMillis.getAsLong(), hooksMaxAgeMillis,
                            deadMaxAgeMillis, PASS_HOOKS, full);
                    deleted.increment(result.deleted());
                    deletedEarly.increment(result.deliveredEarly());
                    early += result.deliveredEarly();
                    unreclaimed += result.deleted();
                    passes++;
                } while (result.more() && passes < MAX_PASSES && (result.deleted() > 0 || passes < MIN_PASSES));
                if (early > 0) {
                    LOG.info("the store is at store.max_bytes ({} bytes): deleted {} delivered hooks before "
                            + "retention.hooks_seconds, oldest first", size.maxBytes(), early);
                }
            }
            size.refresh();
            if (size.full() && unreclaimed > 0 && store.isOpen() && store.isHealthy()) {
                unreclaimed = 0;
                store.reclaim();
                size.refresh();
                LOG.info("the store is at store.max_bytes ({} bytes); after reclaiming deleted rows it holds {} bytes",
                        size.maxBytes(), size.bytes());
            }
        } catch (RuntimeException e) {
            warnings.warn("retention pass failed: " + e.getMessage(), e);
        }
    }

    /** Stops the thread, waiting for a pass in progress (before the store closes). */
    @Override
    public void close() {
        if (!Threads.stopNow(scheduler, 30)) {
            LOG.warn("the retention thread did not stop within 30 s");
        }
    }
}

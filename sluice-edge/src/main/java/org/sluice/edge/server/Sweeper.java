package org.sluice.edge.server;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.edge.log.Warnings;
import org.sluice.edge.threads.Threads;

/**
 * The background sweeps, on one scheduler thread of their own (never an event loop): every
 * {@value #TICK_MILLIS} ms, one shard of the tenant limiter table (so every shard once a
 * minute, and a table of a million rows is never scanned whole in one tick) and one bounded
 * pass over the store's expired dedupe entries; and every {@value #RESUME_MILLIS} ms, while
 * the store's writes fail, one try to resume it ({@link Backends#resumeStore()}).
 */
final class Sweeper implements AutoCloseable {

    static final long TICK_MILLIS = 3_750L;
    /** How often a failing store is tried again. */
    static final long RESUME_MILLIS = 1_000L;
    /** Most expired dedupe entries removed per tick. */
    static final int DEDUPE_PASS = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);

    private final Backends backends;
    private final Clock clock;
    private final LongSupplier epochMillis;
    private final ScheduledExecutorService scheduler;
    private final Warnings warnings = new Warnings(LOG, TimeUnit.MINUTES.toNanos(1));

    Sweeper(Backends backends, Clock clock, LongSupplier epochMillis) {
        this.backends = backends;
        this.clock = clock;
        this.epochMillis = epochMillis;
        this.scheduler = Threads.daemonScheduler("sluice-sweeper");
        scheduler.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::resume, RESUME_MILLIS, RESUME_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void resume() {
        try {
            backends.resumeStore();
        } catch (RuntimeException e) {
            warnings.warn("resuming the store failed: " + e.getMessage(), e);
        }
    }

    void tick() {
        try {
            backends.tenantRows().sweepNext(clock.nanoTime());
            if (backends.store().isHealthy()) { // a failing store is the resume task's; sweeping it only adds warnings
                backends.sweepDedupe(DEDUPE_PASS, epochMillis.getAsLong());
            }
        } catch (RuntimeException e) {
            warnings.warn("sweep failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        Threads.stopNow(scheduler, 5);
    }
}

package org.sluice.edge.delivery;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DestinationPauses;

/**
 * Starts a new hook's first attempts at its commit, and is the one way a commit tells the
 * dispatcher about new deliveries ({@link CommitClaims}): under the store's commit lock it
 * claims a delivery whose attempt can start at once ({@link #claim}); after the write it
 * starts the claimed attempts and, when the commit also wrote deliveries nobody claimed,
 * tells the driver, whose pass finds them ({@link #committed}).
 *
 * <p>The store calls it while a driver runs ({@link Dispatcher#start()} sets it, close
 * unsets it). The calls into the transports are in {@link Outlet} and, for the hand-off of
 * the claimed attempts, {@link #committed} (marked TRANSPORT).
 */
final class CommitStarter implements CommitClaims {

    private final Map<String, Outlet> outlets;
    private final DestinationPauses pauses;
    private final LongSupplier wallMillis;
    private final Driver driver;
    private final Transports transports;
    /** First attempts started by their commit, over every destination. */
    private final AtomicLong started = new AtomicLong();

    CommitStarter(Map<String, Outlet> outlets, DestinationPauses pauses, LongSupplier wallMillis, Driver driver,
                  Transports transports) {
        this.outlets = outlets;
        this.pauses = pauses;
        this.wallMillis = wallMillis;
        this.driver = driver;
        this.transports = transports;
    }

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
        if (!driver.passesComing()) {
            return -1; // with no driver (a test pumping by hand) every delivery goes through the scan
        }
        Outlet outlet = outlets.get(destination);
        if (outlet == null || outlet.fifo != null || pauses.mayBePaused(destination)) {
            return -1;
        }
        return outlet.claimAtCommit(nowMillis);
    }

    /**
     * On the committing thread (an intake writer), after the commit's write, or under the
     * commit lock when the commit failed before its write: starts the claimed first attempts
     * (one hand-off to each transport's thread for them all), or gives their slots back when
     * the write failed. When the write also stored {@code unclaimed} deliveries, tells the
     * driver ({@link Driver#committed()}). Sending only queues; it never waits for the network.
     */
    @Override
    public void committed(List<Claimed> claimed, int unclaimed, boolean written) {
        long nowMs = wallMillis.getAsLong();
        try {
            for (Claimed c : claimed) {
                Outlet outlet = outlets.get(c.row().destination());
                if (written) {
                    outlet.sendClaimedAtCommit(c.row(), c.hook(), c.seq(), c.writes(), nowMs);
                    started.incrementAndGet();
                } else {
                    outlet.unclaimAtCommit();
                }
            }
        } finally {
            if (written && !claimed.isEmpty()) {
                transports.flush(); // TRANSPORT: the claimed attempts start now
            }
            if (written && unclaimed > 0) {
                driver.committed(); // the one wake-up for new deliveries: its rows are counted and above the scan floor
            }
        }
    }

    /** First attempts started by their commit rather than by a pass. */
    long started() {
        return started.get();
    }
}

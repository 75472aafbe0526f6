package org.sluice.edge.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.core.Limit;

/**
 * A destination paced by the fleet: its permits come from one bucket in the fleet's Redis
 * that every node leases from ({@link FleetPacing}), so {@code rate} is the fleet's rate,
 * not each node's.
 *
 * <p>One lease per pass: {@link #beginPass} asks for as many permits as the pass could start
 * attempts (its free slots and due rows; one while the breaker is not closed) in one call,
 * and the pass spends them ({@link #tryTake}); when they run out it waits for the time the
 * fleet said the next permit takes. A permit the pass did not spend (a row that turned out
 * dead of age, or started at its commit meanwhile) is dropped at {@link #endPass}, never
 * carried to a later pass, so what a node sends never exceeds what the bucket granted it.
 *
 * <p>While the fleet does not answer (Redis down or slow past {@code fleet.timeout_ms}, or
 * its breaker open), the pass paces from a bucket of this node's own at {@code rate / N} and
 * {@code burst / N} (at least one), N being {@link FleetPacing#fallbackDivisor()} (the last
 * known live nodes), as admission does; the bucket is made again when N changes. Every pass
 * asks the fleet first, so pacing returns to the fleet's bucket as soon as it answers.
 *
 * <p>An {@code adaptive} destination leases at the pace its {@link AdaptivePace} has on this
 * node ({@link AdaptivePace#limit}: the pace and a tenth of a second's burst), so the
 * fleet's bucket runs at the pace of whichever node leases, and what the fleet sends stays
 * under the highest of the nodes' paces (a grant moves the bucket by one interval at the
 * leasing node's pace). While a {@code Retry-After} hold runs the pass leases nothing; the
 * fallback is an {@link AdaptivePacer} at the pace divided by N.
 *
 * <p>No first attempt starts at its commit ({@link #tryTakeAtCommit}): a commit runs under
 * the store's commit lock and must not call Redis; the commit wakes the driver and the
 * pass leases for it.
 *
 * <p>Threads: every method but {@link #tryTakeAtCommit} (which touches no field),
 * {@link #heard} and {@link #perSecond} (which read only final fields and the thread-safe
 * {@link AdaptivePace}) is the pass's, so the other fields need no guard.
 */
final class FleetPacer implements Pacer {

    private static final Logger LOG = LoggerFactory.getLogger(FleetPacer.class);
    /** The wait before a lease was made (not expected: a pass begins before it takes). */
    private static final long NO_LEASE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final String name;
    /** The fixed rate, or null when {@link #pace} is not. */
    private final Limit fixed;
    /** The adaptive pace, or null when {@link #fixed} is not. */
    private final AdaptivePace pace;
    private final FleetPacing fleet;
    private final Clock clock;
    private final Counter fleetLeases;
    private final Counter fallbackLeases;

    /** Permits of this pass's lease not yet spent. */
    private int permits;
    /** After the permits are spent: how long until the fleet grants another. */
    private long waitNanos = NO_LEASE_WAIT_NANOS;
    /** This pass paces from {@link #fallback}: the fleet did not answer. */
    private boolean local;
    private Pacer fallback;
    private int fallbackDivisor;

    FleetPacer(String name, Limit limit, FleetPacing fleet, Clock clock, MeterRegistry registry) {
        this(name, limit, null, fleet, clock, registry);
    }

    FleetPacer(String name, AdaptivePace pace, FleetPacing fleet, Clock clock, MeterRegistry registry) {
        this(name, null, pace, fleet, clock, registry);
    }

    private FleetPacer(String name, Limit fixed, AdaptivePace pace, FleetPacing fleet, Clock clock,
                       MeterRegistry registry) {
        this.name = name;
        this.fixed = fixed;
        this.pace = pace;
        this.fleet = fleet;
        this.clock = clock;
        this.fleetLeases = leases(registry, "fleet");
        this.fallbackLeases = leases(registry, "fallback");
    }

    private Counter leases(MeterRegistry registry, String answer) {
        return Counter.builder("sluice.delivery.pace.leases")
                .description("Passes that leased a paced destination's permits: from the fleet's bucket, "
                        + "or from this node's share while the fleet did not answer")
                .tag("destination", name).tag("answer", answer).register(registry);
    }

    @Override
    public void beginPass(int wanted) {
        long hold = pace == null ? 0 : pace.holdNanos(clock.nanoTime());
        if (hold > 0) { // the destination asked for a pause (Retry-After): lease nothing
            local = false;
            permits = 0;
            waitNanos = hold;
            return;
        }
        FleetPacing.Lease lease;
        try {
            lease = fleet.lease(name, pace != null ? pace.limit() : fixed, Math.max(1, wanted));
        } catch (RuntimeException e) {
            LOG.warn("leasing pacing permits of destination {} failed: {}", name, e.toString());
            lease = new FleetPacing.Unreachable();
        }
        if (lease instanceof FleetPacing.Granted g) {
            local = false;
            permits = Math.max(0, g.permits());
            waitNanos = Math.max(1, g.waitNanos());
            fleetLeases.increment();
        } else {
            local = true;
            permits = 0;
            fallbackLeases.increment();
            int n = Math.max(1, fleet.fallbackDivisor());
            if (fallback == null || n != fallbackDivisor) {
                fallbackDivisor = n;
                fallback = pace != null ? new AdaptivePacer(pace, clock, n) : new LocalPacer(name, share(fixed, n), clock);
            }
        }
    }

    /** {@code limit}'s rate and burst divided by {@code n}, the burst at least one. */
    static Limit share(Limit limit, int n) {
        return Limit.of(limit.rate() / n, Math.max(1, limit.burst() / n));
    }

    @Override
    public long tryTake() {
        if (local) {
            return fallback.tryTake();
        }
        if (permits > 0) {
            permits--;
            return 0;
        }
        if (pace != null) {
            pace.pressed();
        }
        return waitNanos;
    }

    @Override
    public void endPass() {
        permits = 0;
    }

    @Override
    public double perSecond() {
        return pace != null ? pace.perSecond() : fixed.rate();
    }

    @Override
    public void heard(AttemptResult result, long startNanos, long endNanos) {
        if (pace != null) {
            pace.heard(result, startNanos, endNanos);
        }
    }

    @Override
    public long tryTakeAtCommit() {
        return 1; // the pass leases for it
    }
}

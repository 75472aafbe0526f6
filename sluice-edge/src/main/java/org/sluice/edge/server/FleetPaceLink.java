package org.sluice.edge.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.FleetPacing;
import org.sluice.fleet.FleetCharges;
import org.sluice.fleet.FleetClient;
import org.sluice.fleet.FleetLease;

/**
 * The dispatcher's {@link FleetPacing} over the node's fleet client: a destination's permits
 * from its bucket in the fleet's Redis ({@link FleetClient#lease}, one {@code pace.lua} run
 * per call), its rate and burst in the fleet's microseconds ({@link FleetCharges}).
 *
 * <p>Bound: the client's stage completes within {@code fleet.timeout_ms} (its own timer cuts
 * a slow call off as a fallback); this waits for it at most that plus {@link #SLACK_MS}, in
 * case the timer itself is late, and takes anything else as {@link FleetPacing.Unreachable}.
 * So a pass spends at most about {@code fleet.timeout_ms} per paced destination it leases for.
 */
final class FleetPaceLink implements FleetPacing {

    /** Beyond {@code fleet.timeout_ms}: how late the client's budget timer may be before the pass stops waiting. */
    static final long SLACK_MS = 50;

    private final FleetClient client;
    private final long waitMs;

    FleetPaceLink(FleetClient client) {
        this.client = client;
        this.waitMs = client.settings().timeoutMs() + SLACK_MS;
    }

    @Override
    public Lease lease(String destination, Limit limit, int wanted) {
        FleetCharges c = FleetCharges.of(limit, 0);
        CompletableFuture<FleetLease> stage = client.lease(destination, c.hookIncUs(), c.hookTolUs(), wanted)
                .toCompletableFuture();
        FleetLease answer;
        try {
            answer = stage.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Unreachable();
        } catch (ExecutionException | TimeoutException e) {
            return new Unreachable();
        }
        if (answer instanceof FleetLease.Granted g) {
            return new Granted(g.permits(), TimeUnit.MICROSECONDS.toNanos(g.waitUs()));
        }
        return new Unreachable(); // FleetLease.Fallback: the store did not answer in time, failed, or its breaker is open
    }

    @Override
    public int fallbackDivisor() {
        return (int) Math.max(1L, Math.round(1.0 / client.fallbackShare()));
    }
}

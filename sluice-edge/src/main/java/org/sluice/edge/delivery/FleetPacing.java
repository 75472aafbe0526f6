package org.sluice.edge.delivery;

import org.sluice.core.Limit;

/**
 * Where a paced destination's permits come from when its {@code rate} is the fleet's
 * ({@code store.kind: kafka} with the fleet's Redis): one bucket per destination shared by
 * every node. The dispatcher asks once per pass for all the attempts the pass would start
 * ({@link #lease}), never once per attempt; the server's assembly implements it over the
 * fleet client, so this package names no Redis type.
 *
 * <p>Called only by the dispatcher's pass (one thread). {@link #lease} may block, for at
 * most the bound its implementation states (the fleet's {@code timeout_ms}).
 */
public interface FleetPacing {

    /**
     * Up to {@code wanted} (at least 1) permits of {@code destination}'s fleet bucket, paced
     * at {@code limit}'s rate and burst; the permits granted are spent by the caller now or
     * never.
     */
    Lease lease(String destination, Limit limit, int wanted);

    /**
     * What a node divides a destination's rate and burst by while the fleet does not
     * answer: the last known number of live nodes ({@code fleet.fallback: share}), or 1
     * ({@code whole}). At least 1.
     */
    int fallbackDivisor();

    /** The fleet's answer to a {@link #lease}. */
    sealed interface Lease {
    }

    /** {@code permits} granted now; one more would be granted after {@code waitNanos} (0: at once). */
    record Granted(int permits, long waitNanos) implements Lease {
    }

    /** The fleet did not answer (in time): pace from this node alone. */
    record Unreachable() implements Lease {
    }
}

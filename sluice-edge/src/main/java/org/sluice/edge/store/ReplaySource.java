package org.sluice.edge.store;

import java.util.function.LongSupplier;

/**
 * What a replay walks ({@code POST /v1/destinations/{name}/replay}): the hooks of a time
 * range that a destination should receive again, counted before the replay starts and then
 * scheduled one by one, each only once the replay's pacing lets it through. On the RocksDB
 * store the walk reads the store's delivery rows; on the fleet's log
 * ({@code store.kind: kafka}) it reads the hooks topic from the range's start.
 *
 * <p>Implementations are thread-safe: each call works on its own readers.
 */
public interface ReplaySource {

    /** The pacing of one replay: asked before each hook is scheduled, told after. */
    interface Pacing {

        /** Waits until the next hook may be scheduled; false when the replay must stop (interrupted). */
        boolean admit();

        /** {@code hooks} more were scheduled. */
        void scheduled(int hooks);

        /**
         * The destination's direct path for this replay's hooks, or null (the default): each
         * hook is scheduled as a pending delivery in the store. Only the fleet's log uses it
         * (docs/fleet-log.md, "Replays", "Streaming"); a hook streamed counts as scheduled.
         */
        default ReplayStream stream() {
            return null;
        }
    }

    /**
     * What a replay of hooks stamped in {@code [fromMillis, toMillis)} to {@code destination}
     * would schedule, answered as {@code scheduled} when it starts (each kind says exactly
     * what it counts).
     *
     * @throws UnsupportedOnStoreKind when this kind cannot replay so
     */
    long count(String destination, long fromMillis, long toMillis, boolean deadOnly);

    /**
     * Schedules a fresh delivery to {@code destination} of each hook of the range (only of
     * those whose delivery is dead when {@code deadOnly}), each admitted by {@code pacing}
     * first; returns when the range is walked or {@code pacing} says stop.
     *
     * @param wallMillis the epoch ms each fresh delivery is scheduled at, read as it is made
     */
    void schedule(String destination, long fromMillis, long toMillis, boolean deadOnly, LongSupplier wallMillis,
                  Pacing pacing);
}

package org.sluice.edge.store;

import java.util.List;
import java.util.Objects;

/**
 * A read-only walk over the hooks committed in a time range, returning their delivery row
 * to one destination: what a replay selects (the store's {@link DeliveryLedger#scan} does
 * each step).
 *
 * <p>Each call examines at most {@code maxHooks} hook ids and returns a cursor to continue
 * from, so a walk over any range holds one page in memory. It never blocks ingest or the
 * dispatcher, and stops at the first hook not yet known durable, as pagers do (see
 * {@link HookLog#after}).
 */
public final class DeliveryScan {

    /**
     * One step of a walk.
     *
     * @param rows   the rows to the destination of the hooks examined, in commit-time order
     *               (hooks without a row to it are skipped)
     * @param cursor the last examined hook id, to pass as {@code afterId} for the next step;
     *               null when the range is exhausted
     */
    public record Page(List<DeliveryRow> rows, String cursor) {
        public Page {
            rows = List.copyOf(rows);
        }
    }

    private DeliveryScan() {
    }

    /**
     * Rows to {@code destination} of hooks committed in {@code [fromMillis, toMillis)} (by
     * their id's time), after hook id {@code afterId} (from {@code fromMillis} when null),
     * examining at most {@code maxHooks} hooks.
     */
    public static Page rows(HookStore store, String destination, long fromMillis, long toMillis, String afterId,
                            int maxHooks) {
        Objects.requireNonNull(store, "store");
        return store.deliveries().scan(destination, fromMillis, toMillis, afterId, maxHooks);
    }
}

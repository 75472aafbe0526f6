package org.sluice.edge.store;

import java.util.List;
import java.util.Map;

/**
 * A committed hook without its body, for listings: what a row of the console's Hooks page
 * shows. The body is fetched by id when the row is opened.
 *
 * @param id               its UUIDv7, as a lower-case string
 * @param tenant           the tenant it belongs to
 * @param source           the source it arrived on
 * @param receivedAtMillis wall-clock time it was received, epoch milliseconds
 * @param headers          stored request headers in arrival order (unmodifiable)
 * @param bodyBytes        the body's length
 */
public record HookSummary(String id, String tenant, String source, long receivedAtMillis, Map<String, String> headers,
                          int bodyBytes) {

    /** {@code h} without its body. */
    public static HookSummary of(StoredHook h) {
        return new HookSummary(h.id(), h.tenant(), h.source(), h.receivedAtMillis(), h.headers(), h.body().length);
    }

    /**
     * One page of {@link HookLog#newest}.
     *
     * @param hooks newest first
     * @param next  the id to pass as {@code after} for the next (older) page when older hooks
     *              were stored when this page was read; null when this page reached the oldest
     */
    public record Page(List<HookSummary> hooks, String next) {
        public Page {
            hooks = List.copyOf(hooks);
        }
    }
}

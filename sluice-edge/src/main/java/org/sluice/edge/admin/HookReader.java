package org.sluice.edge.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.sluice.edge.store.HookSummary;

/**
 * Read access to committed hooks, as the admin API needs it. The server adapts its
 * hook store to this; reads never take the store's commit lock, so they never block
 * ingest. Methods throw {@link StoreUnavailableException} when the store cannot be read.
 */
public interface HookReader {

    /** A committed hook. {@code headers} in arrival order; {@code body} the stored bytes. */
    record Hook(String id, String tenant, String source, long receivedAtMillis, Map<String, String> headers,
                byte[] body) {
    }

    /**
     * One page in commit order; {@code next} is the id to continue after when more hooks
     * were committed after this page, else null.
     */
    record Page(List<Hook> hooks, String next) {
        public Page {
            hooks = List.copyOf(hooks);
        }
    }

    /** The hook with this id, or empty (also for a string that is not an id). */
    Optional<Hook> get(String id);

    /**
     * Up to {@code limit} (at least 1) hooks committed after hook {@code afterId} (from
     * the first when null), or empty when no stored hook has id {@code afterId}.
     */
    Optional<Page> after(String afterId, int limit);

    /**
     * Up to {@code limit} (at least 1) hooks, newest first and without bodies, committed
     * before hook {@code afterId} (from the newest when null), or empty when no stored hook
     * has id {@code afterId}.
     */
    default Optional<HookSummary.Page> newest(String afterId, int limit) {
        throw new UnsupportedOperationException("this hook reader cannot list newest first");
    }
}

package org.sluice.edge.http;

import java.util.List;
import org.sluice.edge.dedupe.DedupeKeyExtractor;
import org.sluice.edge.dedupe.DedupeKeys;
import org.sluice.edge.verify.Verifier;

/**
 * One configured source as the request path needs it.
 *
 * @param id       the source id, the last URL segment
 * @param tenant   the owning tenant, or null for a shared source
 * @param verifier proves its hooks genuine
 * @param dedupe   finds a hook's dedupe key
 * @param deliverTo the destinations each accepted hook is scheduled for ({@code deliver_to}), possibly none
 */
public record SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe,
                          List<String> deliverTo) {

    public SourceRoute {
        deliverTo = List.copyOf(deliverTo);
    }

    /**
     * Whether {@link HookStage} may read the store for this source's hooks: a hook with a
     * dedupe key is looked up there, a read that can wait on the disk. False for
     * {@code dedupe: none}; {@link HookHandler} then runs the stage on the event loop.
     */
    public boolean readsStore() {
        return dedupe != DedupeKeys.none();
    }

    /** A source that delivers nowhere. */
    public SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe) {
        this(id, tenant, verifier, dedupe, List.of());
    }
}

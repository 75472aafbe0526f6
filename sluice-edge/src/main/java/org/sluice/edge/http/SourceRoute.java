package org.sluice.edge.http;

import java.util.List;
import org.sluice.edge.dedupe.DedupeKeyExtractor;
import org.sluice.edge.route.Routes;
import org.sluice.edge.verify.Verifier;

/**
 * One configured source as the request path needs it.
 *
 * @param id       the source id, the last URL segment
 * @param tenant   the owning tenant, or null for a shared source
 * @param verifier proves its hooks genuine
 * @param dedupe   finds a hook's dedupe key
 * @param routes   the destinations an accepted hook is scheduled for ({@code deliver_to} and its
 *                 filters), possibly none
 */
public record SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe, Routes routes) {

    /** A source whose every hook goes to every destination of {@code deliverTo}. */
    public SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe, List<String> deliverTo) {
        this(id, tenant, verifier, dedupe, Routes.unfiltered(deliverTo));
    }

    /** Every destination of {@code deliver_to}, filtered or not. */
    public List<String> deliverTo() {
        return routes.all();
    }

    /** A source that delivers nowhere. */
    public SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe) {
        this(id, tenant, verifier, dedupe, List.of());
    }
}

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
 * @param stored   the received headers its hooks are stored with ({@code store_headers})
 */
public record SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe, Routes routes,
                          StoredHeaderNames stored) {

    public SourceRoute {
        java.util.Objects.requireNonNull(routes, "routes");
        java.util.Objects.requireNonNull(stored, "stored");
    }

    /** A source whose every hook goes to every destination of {@code deliverTo}, stored with every header. */
    public SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe, List<String> deliverTo) {
        this(id, tenant, verifier, dedupe, Routes.unfiltered(deliverTo), StoredHeaderNames.ALL);
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

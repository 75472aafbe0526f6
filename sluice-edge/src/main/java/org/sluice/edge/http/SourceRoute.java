package org.sluice.edge.http;

import org.sluice.edge.dedupe.DedupeKeyExtractor;
import org.sluice.edge.verify.Verifier;

/**
 * One configured source as the request path needs it.
 *
 * @param id       the source id, the last URL segment
 * @param tenant   the owning tenant, or null for a shared source
 * @param verifier proves its hooks genuine
 * @param dedupe   finds a hook's dedupe key
 */
public record SourceRoute(String id, String tenant, Verifier verifier, DedupeKeyExtractor dedupe) {
}

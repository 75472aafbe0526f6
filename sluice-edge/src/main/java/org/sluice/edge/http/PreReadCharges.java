package org.sluice.edge.http;

import org.sluice.core.Clock;
import org.sluice.edge.admission.PreReadLimits;
import org.sluice.edge.admission.RefusalScope;

/**
 * The node's pre-read buckets ({@link PreReadLimits}) as the ingest pipeline charges them: on
 * the server's clock, every refusal counted in {@code metrics}, and the one shadow-mode rule
 * ({@code rate_limits.shadow}: a refusal is counted and the request goes on). Shared by
 * {@link PreReadAdmissionHandler} (the address, the node and the declared length, before the
 * body) and {@link BodyAggregator} (the source's bytes once received), so both refuse alike.
 *
 * <p>Immutable and thread-safe: one per server, used by every connection's handlers.
 *
 * @param limits  the buckets
 * @param clock   their clock ({@link Clock#nanoTime()})
 * @param shadow  {@code rate_limits.shadow}: refusals are counted, never answered
 * @param metrics where refusals and answers are counted
 */
public record PreReadCharges(PreReadLimits limits, Clock clock, boolean shadow, IngestMetrics metrics) {

    /** Now on the buckets' clock, ns. */
    long now() {
        return clock.nanoTime();
    }

    /**
     * A charge's answer ({@code waitNanos}: 0 admitted, else the wait) in {@code scope}: a
     * refusal is counted, and stands (true) unless in shadow mode.
     */
    boolean refuses(RefusalScope scope, long waitNanos) {
        if (waitNanos == 0) {
            return false;
        }
        metrics.refused(scope);
        return !shadow;
    }
}

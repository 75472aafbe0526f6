package org.sluice.edge.admission;

import org.sluice.core.QueueShares;
import org.sluice.core.TenantDecision;
import org.sluice.fleet.FleetAnswer;

/**
 * The one refusal of admission: which layer refused and how long to wait, in nanoseconds.
 * A value, never an exception. Each limiter's own answer is turned into one here, and only
 * here; {@code http.Responses} turns it into the response.
 */
public record Refusal(RefusalScope scope, long waitNanos) {

    /** The tenant's quota refused ({@link TenantDecision#admitted()} false): its hook or byte bucket. */
    static Refusal of(TenantDecision decision) {
        return new Refusal(decision.scope() == TenantDecision.Scope.TENANT ? RefusalScope.TENANT : RefusalScope.TENANT_BYTES,
                decision.waitNanos());
    }

    /** The tenant's queue share refused ({@link QueueShares.Decision#admitted()} false). */
    static Refusal of(QueueShares.Decision decision) {
        return new Refusal(RefusalScope.TENANT_OVERLOAD, decision.retryAfterMillis() * 1_000_000L);
    }

    /** The fleet store refused the tenant's quota. */
    static Refusal of(FleetAnswer.RateLimited limited) {
        return new Refusal(limited.scope() == FleetAnswer.Scope.TENANT_BYTES ? RefusalScope.TENANT_BYTES : RefusalScope.TENANT,
                limited.waitMs() * 1_000_000L);
    }
}

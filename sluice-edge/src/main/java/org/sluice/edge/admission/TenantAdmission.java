package org.sluice.edge.admission;

import java.util.OptionalLong;
import org.sluice.core.EffectiveLimit;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantDecision;
import org.sluice.core.TenantLimits;

/**
 * The {@link TenantGate} of a running node: the tenant's quota from {@link TenantLimits}
 * (its buckets in this process, or in the {@link HostArena} under {@code rate_limits.scope:
 * host}), its queue share from {@link QueueShares}, its body limit capped by the instance's,
 * and the RateLimit header values (none under the fleet scope, where this node does not know
 * what the fleet's bucket holds). Thread-safe and lock-free on existing rows.
 */
public final class TenantAdmission implements TenantGate {

    private final TenantLimits limits;
    private final QueueShares shares;
    /** The host arena ({@code rate_limits.scope: host}), or null. */
    private final HostArena host;
    /** The fleet gate ({@code scope: fleet}), or null. */
    private final FleetGate fleet;
    private final long instanceMaxBody;

    public TenantAdmission(TenantLimits limits, QueueShares shares, HostArena host, FleetGate fleet,
                           long instanceMaxBody) {
        this.limits = limits;
        this.shares = shares;
        this.host = host;
        this.fleet = fleet;
        this.instanceMaxBody = instanceMaxBody;
    }


    @Override
    public long bodyLimit(String tenant) {
        OptionalLong own = limits.bodyLimit(tenant);
        return own.isPresent() ? Math.min(own.getAsLong(), instanceMaxBody) : instanceMaxBody;
    }

    @Override
    public Refusal charge(String tenant, long bytes) {
        TenantDecision decision = host == null ? limits.hit(tenant, bytes)
                : host.hitTenant(tenant, bytes, limits.effective(tenant).limit());
        return decision.admitted() ? null : Refusal.of(decision);
    }

    @Override
    public ShareResult acquire(String tenant, long bytes) {
        EffectiveLimit effective = limits.effective(tenant);
        if (effective.unlimited() || !effective.limit().hasQueueLimit()) {
            return Lease.NONE;
        }
        QueueShares.Decision decision = shares.acquire(tenant, bytes, effective.limit());
        if (!decision.admitted()) {
            return Refusal.of(decision);
        }
        return decision.lease() == null ? Lease.NONE : new Lease(decision.lease());
    }

    @Override
    public void release(Lease lease) {
        if (lease.held() != null) {
            shares.release(lease.held());
        }
    }

    @Override
    public String[] rateLimitHeaders(String tenant) {
        EffectiveLimit effective = limits.effective(tenant);
        if (effective.unlimited() || (fleet != null && fleet.ratesInFleet())) {
            return null; // under scope fleet this node does not know what the fleet's bucket holds
        }
        return RateLimitFields.of(effective.limit(),
                host == null ? limits.remaining(tenant) : host.remainingHooks(tenant, effective.limit()));
    }
}

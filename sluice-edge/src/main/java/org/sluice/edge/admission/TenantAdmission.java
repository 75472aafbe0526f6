package org.sluice.edge.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.sluice.core.EffectiveLimit;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantDecision;
import org.sluice.core.TenantLimits;
import org.sluice.fleet.FleetAnswer;

/**
 * The {@link TenantGate} of a running node: the tenant's quota from {@link TenantLimits}
 * (its buckets in this process, or in the {@link HostArena} under {@code rate_limits.scope:
 * host}, or the fleet's through the {@link FleetGate} under {@code scope: fleet}), its queue
 * share from {@link QueueShares}, its body limit capped by the instance's, and the RateLimit
 * header values (none under the fleet scope, where this node does not know what the fleet's
 * bucket holds). In shadow mode ({@code rate_limits.shadow}) a refusal is handed back inside
 * the {@link Admission.Admitted} answer, to be counted, and the hook goes on.
 *
 * <p>Thread-safe and lock-free on existing rows; the fleet's answer is read on the caller's
 * {@code after} executor.
 */
public final class TenantAdmission implements TenantGate {

    /** Where a hook's quota is charged, once the fleet (if any) has answered. */
    private enum Quota {
        /** This node's tables, or the host arena. */
        HERE,
        /** This node's share of the fleet limit: the fleet store did not answer. */
        FALLBACK,
        /** Nowhere more: charged in the fleet store, or the tenant has no limit there. */
        NONE
    }

    private final TenantLimits limits;
    private final QueueShares shares;
    /** The host arena ({@code rate_limits.scope: host}), or null. */
    private final HostArena host;
    /** The fleet gate ({@code scope: fleet}), or null. */
    private final FleetGate fleet;
    private final long instanceMaxBody;
    private final boolean shadow;
    /** Each tenant's share of the store, checked before anything else is charged. */
    private final StoreShares storage;

    /** Without store shares ({@link StoreShares#NONE}). */
    public TenantAdmission(TenantLimits limits, QueueShares shares, HostArena host, FleetGate fleet,
                           long instanceMaxBody, boolean shadow) {
        this(limits, shares, host, fleet, instanceMaxBody, shadow, StoreShares.NONE);
    }

    public TenantAdmission(TenantLimits limits, QueueShares shares, HostArena host, FleetGate fleet,
                           long instanceMaxBody, boolean shadow, StoreShares storage) {
        this.storage = storage;
        this.limits = limits;
        this.shares = shares;
        this.host = host;
        this.fleet = fleet;
        this.instanceMaxBody = instanceMaxBody;
        this.shadow = shadow;
    }

    @Override
    public long bodyLimit(String tenant) {
        OptionalLong own = limits.bodyLimit(tenant);
        return own.isPresent() ? Math.min(own.getAsLong(), instanceMaxBody) : instanceMaxBody;
    }

    @Override
    public CompletionStage<Admission> admit(String tenant, String source, String key, long bytes, Executor after) {
        Refusal full = storage.check(tenant); // first: a tenant at its store share is charged nothing and asks no fleet
        if (full != null && !shadow) {
            return CompletableFuture.completedFuture(new Admission.Refused(full, rateLimit(tenant)));
        }
        List<Refusal> shadowed = full == null ? List.of() : List.of(full);
        CompletionStage<FleetAnswer> asked = fleet == null ? null : fleet.admit(tenant, source, key, bytes);
        if (asked == null) { // nothing to ask the fleet: a fleet-scoped quota here is an unlimited tenant
            Quota quota = fleet != null && fleet.ratesInFleet() ? Quota.NONE : Quota.HERE;
            return CompletableFuture.completedFuture(charge(tenant, bytes, quota, null, shadowed));
        }
        return asked.thenApplyAsync(answer -> afterFleet(answer, tenant, source, key, bytes, shadowed), after);
    }

    @Override
    public Admission.Duplicate knownDuplicate(String tenant, String hookId) {
        return new Admission.Duplicate(hookId, rateLimit(tenant));
    }

    /** The fleet's answer read: its duplicate, its pending claim, its refusal, or on to the node's own checks. */
    private Admission afterFleet(FleetAnswer answer, String tenant, String source, String key, long bytes,
                                 List<Refusal> shadowed) {
        if (answer instanceof FleetAnswer.Duplicate dup) {
            return knownDuplicate(tenant, dup.hookId());
        }
        if (answer instanceof FleetAnswer.Pending pending) {
            return new Admission.Pending(pending.retryAfterMs());
        }
        if (answer instanceof FleetAnswer.RateLimited limited) { // nothing was claimed
            Refusal refusal = Refusal.of(limited);
            if (!shadow) {
                return new Admission.Refused(refusal, rateLimit(tenant));
            }
            return charge(tenant, bytes, Quota.NONE, null, with(shadowed, refusal));
        }
        // admitted by the fleet (its quota is charged there), or to be answered node-local
        Quota quota = !fleet.ratesInFleet() ? Quota.HERE
                : answer instanceof FleetAnswer.Fallback ? Quota.FALLBACK : Quota.NONE;
        return charge(tenant, bytes, quota, fleet.claim(answer, tenant, source, key), shadowed);
    }

    /**
     * The tenant's quota (hooks, then bytes) where {@code quota} says, then its share of the
     * node's queue. A refusal gives back {@code claim} (null: none); in shadow mode it is
     * added to {@code shadowed} and the hook goes on.
     */
    private Admission charge(String tenant, long bytes, Quota quota, FleetGate.Claim claim, List<Refusal> shadowed) {
        Refusal refused = switch (quota) {
            case HERE -> chargeHere(tenant, bytes);
            case FALLBACK -> fleet.fallbackCharge(tenant, bytes);
            case NONE -> null;
        };
        if (refused != null) {
            if (!shadow) {
                return refuse(refused, tenant, claim);
            }
            shadowed = with(shadowed, refused);
        }
        EffectiveLimit effective = limits.effective(tenant);
        QueueShares.Lease lease = null;
        if (!effective.unlimited() && effective.limit().hasQueueLimit()) {
            QueueShares.Decision share = shares.acquire(tenant, bytes, effective.limit());
            if (!share.admitted()) {
                Refusal full = Refusal.of(share);
                if (!shadow) {
                    return refuse(full, tenant, claim);
                }
                shadowed = with(shadowed, full);
            } else {
                lease = share.lease();
            }
        }
        return new Admission.Admitted(this, tenant, lease, claim, shadowed);
    }

    private Refusal chargeHere(String tenant, long bytes) {
        TenantDecision decision = host == null ? limits.hit(tenant, bytes)
                : host.hitTenant(tenant, bytes, limits.effective(tenant).limit());
        return decision.admitted() ? null : Refusal.of(decision);
    }

    private Admission.Refused refuse(Refusal refusal, String tenant, FleetGate.Claim claim) {
        if (claim != null) {
            claim.release();
        }
        return new Admission.Refused(refusal, rateLimit(tenant));
    }

    private static List<Refusal> with(List<Refusal> refusals, Refusal more) {
        List<Refusal> out = new ArrayList<>(refusals.size() + 1);
        out.addAll(refusals);
        out.add(more);
        return List.copyOf(out);
    }

    /** Gives back a queue share {@link #charge} held (null: none). */
    void release(QueueShares.Lease lease) {
        if (lease != null) {
            shares.release(lease);
        }
    }

    /** The tenant's RateLimit field values now, or null when it has no limit this node can read. */
    RateLimitFields rateLimit(String tenant) {
        EffectiveLimit effective = limits.effective(tenant);
        if (effective.unlimited() || (fleet != null && fleet.ratesInFleet())) {
            return null; // under scope fleet this node does not know what the fleet's bucket holds
        }
        return RateLimitFields.of(effective.limit(),
                host == null ? limits.remaining(tenant) : host.remainingHooks(tenant, effective.limit()));
    }
}

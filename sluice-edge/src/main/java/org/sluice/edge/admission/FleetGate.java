package org.sluice.edge.admission;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.sluice.core.BucketTable;
import org.sluice.core.Clock;
import org.sluice.core.Gcra;
import org.sluice.core.Limit;
import org.sluice.core.TenantLimits;
import org.sluice.edge.config.DedupeScope;
import org.sluice.edge.config.FleetConfig;
import org.sluice.edge.config.FleetFallback;
import org.sluice.edge.config.LimitScope;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.store.CommitResult;
import org.sluice.fleet.FleetAnswer;
import org.sluice.fleet.FleetCharges;
import org.sluice.fleet.FleetClient;
import org.sluice.fleet.FleetKind;
import org.sluice.fleet.FleetSettings;
import org.sluice.fleet.FleetStats;

/**
 * The edge's side of the fleet scope ({@code rate_limits.scope: fleet} and/or
 * {@code dedupe.scope: fleet}): owns the node's {@link FleetClient}, turns a hook into one
 * {@link FleetClient#admit} call, charges the node-local fallback (the tenant's limit
 * divided by the last known live-node count under {@code fleet.fallback: share}), and
 * queues the settle of a claim once the commit has answered.
 *
 * <p>Its request-path methods are {@link TenantAdmission}'s alone (package-private): the
 * fleet's answer is read there and reaches {@code http} as an {@link Admission}.
 *
 * <p>Thread-safety: every method may be called from any thread; the client is lock-free on
 * the request path, the fallback charge is a CAS on the node's own bucket tables, and a
 * claim's settle only enqueues. Nothing here blocks.
 */
public final class FleetGate implements AutoCloseable {

    private final FleetClient client;
    private final boolean rateScope;
    private final boolean dedupeScope;
    private final long dedupeTtlSeconds;
    private final TenantLimits limits;
    private final BucketTable hookBuckets;
    private final BucketTable byteBuckets;
    private final Clock clock;

    private FleetGate(FleetClient client, SluiceConfig config, TenantLimits limits, BucketTable hookBuckets,
                      BucketTable byteBuckets, Clock clock) {
        this.client = client;
        this.rateScope = config.rateLimits().scope() == LimitScope.FLEET;
        this.dedupeScope = config.dedupe().scope() == DedupeScope.FLEET;
        this.dedupeTtlSeconds = config.dedupe().ttlSeconds();
        this.limits = limits;
        this.hookBuckets = hookBuckets;
        this.byteBuckets = byteBuckets;
        this.clock = clock;
    }

    /** True when {@code config} puts rate limits or dedupe in the fleet scope. */
    public static boolean wanted(SluiceConfig config) {
        return config.rateLimits().scope() == LimitScope.FLEET || config.dedupe().scope() == DedupeScope.FLEET;
    }

    /**
     * Starts the client (a store that is down is no error: hooks are answered node-local
     * until it is up). The node id in the live-node set is {@code node.id} plus a random
     * suffix, so two processes sharing a {@code node.id} are still two nodes.
     */
    public static FleetGate start(SluiceConfig config, TenantLimits limits, BucketTable hookBuckets, BucketTable byteBuckets,
                           Clock clock) {
        FleetClient client = FleetClient.start(settings(config.fleet()),
                config.node().id() + "-" + UUID.randomUUID().toString().substring(0, 8));
        return new FleetGate(client, config, limits, hookBuckets, byteBuckets, clock);
    }

    /** The fleet module's settings for the {@code fleet:} block. */
    static FleetSettings settings(FleetConfig fleet) {
        List<String> uris = fleet.redis().stream().map(URI::toString).toList();
        return new FleetSettings(uris, fleet.isCluster(), fleet.timeoutMs(), fleet.breakerFailureRate(),
                fleet.breakerMinCalls(), fleet.breakerWindowMs(), fleet.breakerOpenMs(), fleet.pendingTtlMs(),
                fleet.settleIntervalMs(), fleet.settleQueueMax(),
                fleet.fallback() == FleetFallback.WHOLE ? FleetSettings.Fallback.WHOLE : FleetSettings.Fallback.SHARE);
    }

    public FleetClient client() {
        return client;
    }

    /** True when the tenant's quota is charged in the fleet store ({@code rate_limits.scope: fleet}). */
    boolean ratesInFleet() {
        return rateScope;
    }

    /**
     * The one store call of a hook, or null when there is nothing to ask the fleet (no
     * fleet-scoped limit for this tenant and no fleet-scoped key): the caller goes on
     * node-local as usual.
     */
    CompletionStage<FleetAnswer> admit(String tenant, String source, String key, long bytes) {
        Limit limit = rateScope ? limits.effective(tenant).limit() : null;
        boolean charge = limit != null;
        boolean claim = dedupeScope && key != null;
        if (!charge && !claim) {
            return null;
        }
        FleetCharges c = charge ? FleetCharges.of(limit, bytes) : FleetCharges.NONE;
        return client.admit(tenant, source, key, c.hookIncUs(), c.hookTolUs(), c.byteIncUs(), c.byteTolUs(),
                charge, claim);
    }

    /**
     * The node-local charge of a hook the fleet could not answer: the tenant's limit scaled
     * by {@link FleetClient#fallbackShare()} (rate and burst divided by the live-node count
     * N, at least one hook of burst; the byte bucket's rate divided by N with the same burst
     * time), charged to this node's own tenant tables. Allocation-free. Null when admitted.
     */
    Refusal fallbackCharge(String tenant, long bytes) {
        Limit limit = limits.effective(tenant).limit();
        if (limit == null) {
            return null;
        }
        long n = Math.max(1L, Math.round(1.0 / client.fallbackShare()));
        long now = clock.nanoTime();
        long interval = Gcra.increment(limit.intervalNanos(), n);
        long burst = Math.max(1L, limit.burst() / n);
        long wait = hookBuckets.tryCharge(tenant, interval, Gcra.increment(interval, burst), now);
        if (wait != 0) {
            return new Refusal(RefusalScope.TENANT, wait);
        }
        if (bytes > 0 && limit.hasByteBucket()) {
            wait = byteBuckets.tryCharge(tenant, Gcra.increment(limit.byteIncrementNanos(bytes), n),
                    limit.byteToleranceNanos(), now);
            if (wait != 0) {
                return new Refusal(RefusalScope.TENANT_BYTES, wait);
            }
        }
        return null;
    }

    /**
     * A hook's claim on its key in the fleet store ({@code token}), to settle once the commit
     * has answered. Never blocks: settling only enqueues.
     */
    record Claim(FleetGate gate, String tenant, String source, String key, String token) {

        /**
         * A durable hook (accepted here, or a duplicate this node's own index knew) promotes
         * the claim under its id for the dedupe window; anything else, including a null
         * {@code result} (the commit failed or never started), releases it.
         */
        void settle(CommitResult result) {
            if (result != null && (result.status() == CommitResult.Status.ACCEPTED
                    || result.status() == CommitResult.Status.DUPLICATE) && result.id() != null) {
                gate.client.settleCommitted(tenant, source, key, token, result.id(), gate.dedupeTtlSeconds);
            } else {
                release();
            }
        }

        /** Nothing was stored for the key (a later refusal). */
        void release() {
            gate.client.settleRelease(tenant, source, key, token);
        }
    }

    /** The claim {@code answer} made on {@code key}, or null when it made none. */
    Claim claim(FleetAnswer answer, String tenant, String source, String key) {
        String token = answer.claimToken();
        return token == null ? null : new Claim(this, tenant, source, key, token);
    }

    /** Best effort: forgets the tenant's fleet buckets after its override changed. */
    public void resetTenant(String tenant) {
        if (rateScope) {
            client.resetTenant(tenant);
        }
    }

    /** {@code sluice_fleet_fallback_total{kind}} and {@code sluice_fleet_limiter_degraded{kind}}. */
    public void bindMetrics(MeterRegistry registry) {
        for (FleetKind kind : FleetKind.values()) {
            FunctionCounter.builder("sluice.fleet.fallback", client, c -> c.fallbackTotal(kind))
                    .description("Hooks answered node-local because the fleet store did not answer")
                    .tag("kind", kind.label()).register(registry);
            Gauge.builder("sluice.fleet.limiter.degraded", client, c -> c.degraded(kind) ? 1 : 0)
                    .description("1 while this kind is answered node-local (breaker open or last call failed)")
                    .tag("kind", kind.label()).register(registry);
        }
        Gauge.builder("sluice.fleet.live.nodes", client, FleetClient::liveNodes)
                .description("Last known number of live nodes in the fleet").register(registry);
        Gauge.builder("sluice.fleet.settle.queue.depth", client, FleetClient::settleQueueDepth)
                .description("Settle operations waiting to be sent to the fleet store").register(registry);
    }

    /** The {@code fleet} slot of {@code GET /v1/admission}. */
    public Map<String, Object> admissionState() {
        FleetStats s = client.stats();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rate_limits", rateScope);
        out.put("dedupe", dedupeScope);
        out.put("breaker", s.breaker().label());
        List<String> degraded = new java.util.ArrayList<>(2);
        if (s.degradedRateLimit()) {
            degraded.add(FleetKind.RATE_LIMIT.label());
        }
        if (s.degradedDedupe()) {
            degraded.add(FleetKind.DEDUPE.label());
        }
        out.put("degraded", degraded);
        out.put("live_nodes", s.liveNodes());
        out.put("fallback_share", client.fallbackShare());
        Map<String, Object> fallback = new LinkedHashMap<>();
        fallback.put("rate_limit", s.fallbackRateLimit());
        fallback.put("dedupe", s.fallbackDedupe());
        fallback.put("breaker_open", s.fallbackBreakerOpen());
        fallback.put("timeout", s.fallbackTimeout());
        fallback.put("error", s.fallbackError());
        out.put("fallback", fallback);
        out.put("store_calls", s.storeCalls());
        Map<String, Object> settle = new LinkedHashMap<>();
        settle.put("queued", s.settleQueued());
        settle.put("promoted", s.settlePromoted());
        settle.put("released", s.settleReleased());
        settle.put("skipped", s.settleSkipped());
        settle.put("dropped", s.settleDropped());
        settle.put("failed", s.settleFailed());
        settle.put("queue_depth", s.settleQueueDepth());
        out.put("settle", settle);
        return out;
    }

    @Override
    public void close() {
        client.close();
    }
}

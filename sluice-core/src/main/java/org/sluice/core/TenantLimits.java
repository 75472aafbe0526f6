package org.sluice.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each tenant's quota, charged after a hook is verified.
 *
 * <h2>Precedence</h2>
 * A tenant's limit is the first of: its runtime override, its config entry ({@code
 * rate_limits.tenants[tenant]}), the config default ({@code rate_limits.default}). The
 * first found applies <em>whole</em>: keys never merge with the next source's (an
 * override without {@code max_body_bytes} does not inherit the config's). None at all
 * means unlimited; there is no "unlimited" value, so exempt a tenant from a default by
 * giving it a high limit.
 *
 * <h2>Buckets</h2>
 * Two {@link BucketTable}s keyed by the tenant id itself, one for the hook count and
 * one for body bytes, so a hit builds no key strings. Both are swept by {@link
 * #sweepNext(long)}, which the owner calls on its sweep tick.
 *
 * <h2>Threads</h2>
 * Reads ({@link #effective}, {@link #hit}, ...) take no lock: overrides live in a
 * {@link ConcurrentHashMap}, config entries in an immutable map, and each resolved
 * {@link EffectiveLimit} is built once when its source is set, so resolving allocates
 * nothing. Override changes (admin path) are serialised by one lock held across the
 * store write, so that the store and memory apply concurrent changes in the same order;
 * the lock never touches the request path. When the store throws, memory is left as it
 * was.
 */
public final class TenantLimits {

    /** Every limit this node knows: the configured default and the tenants, sorted by tenant id. */
    public record Listing(Limit defaultLimit, List<Entry> tenants) {
        public Listing {
            tenants = List.copyOf(tenants);
        }
    }

    /** One tenant's limit in a {@link Listing}: source is {@code OVERRIDE} or {@code CONFIG}. */
    public record Entry(String tenant, Limit limit, LimitSource source) {
    }

    private final EffectiveLimit defaultLimit;
    private final Map<String, EffectiveLimit> config;
    private final ConcurrentHashMap<String, EffectiveLimit> overrides = new ConcurrentHashMap<>();
    private final OverrideStore store;
    private final BucketTable hookBuckets;
    private final BucketTable byteBuckets;
    private final Clock clock;
    private final Object writeLock = new Object();

    /**
     * @param defaultLimit {@code rate_limits.default}; null for none
     * @param tenants {@code rate_limits.tenants} (copied)
     * @param store override store; loaded once here ({@link OverrideStoreException}
     *     propagates: a node that cannot read its overrides should not start)
     */
    public TenantLimits(Limit defaultLimit, Map<String, Limit> tenants, OverrideStore store, Clock clock) {
        this(defaultLimit, tenants, store, new BucketTable(), new BucketTable(), clock);
    }

    /** As above, charging the given tables (hook counts and body bytes; they must be two different tables). */
    public TenantLimits(Limit defaultLimit, Map<String, Limit> tenants, OverrideStore store,
                        BucketTable hookBuckets, BucketTable byteBuckets, Clock clock) {
        this.defaultLimit = defaultLimit == null
                ? EffectiveLimit.UNLIMITED : new EffectiveLimit(defaultLimit, LimitSource.DEFAULT);
        Map<String, EffectiveLimit> byTenant = new HashMap<>();
        tenants.forEach((tenant, limit) -> byTenant.put(requireTenant(tenant),
                new EffectiveLimit(Objects.requireNonNull(limit, "limit of tenant " + tenant), LimitSource.CONFIG)));
        this.config = Map.copyOf(byTenant);
        this.store = Objects.requireNonNull(store, "store");
        if (hookBuckets == byteBuckets) {
            throw new IllegalArgumentException("hookBuckets and byteBuckets must be two different tables");
        }
        this.hookBuckets = Objects.requireNonNull(hookBuckets, "hookBuckets");
        this.byteBuckets = Objects.requireNonNull(byteBuckets, "byteBuckets");
        this.clock = Objects.requireNonNull(clock, "clock");
        store.load().forEach((tenant, limit) ->
                overrides.put(requireTenant(tenant), new EffectiveLimit(limit, LimitSource.OVERRIDE)));
    }

    private static String requireTenant(String tenant) {
        if (tenant == null || tenant.isEmpty()) {
            throw new IllegalArgumentException("tenant must be a non-empty string, got "
                    + (tenant == null ? "null" : "\"\""));
        }
        return tenant;
    }

    // ------------------------------------------------------------------ reading

    /** The limit that applies to {@code tenant} and its source; {@link EffectiveLimit#UNLIMITED} when none. Allocation-free. */
    public EffectiveLimit effective(String tenant) {
        EffectiveLimit found = overrides.get(tenant);
        if (found != null) {
            return found;
        }
        found = config.get(tenant);
        return found != null ? found : defaultLimit;
    }

    /** The biggest body {@code tenant} may send when its limit sets {@code max_body_bytes}; empty otherwise. */
    public OptionalLong bodyLimit(String tenant) {
        Limit limit = effective(tenant).limit();
        return limit == null ? OptionalLong.empty() : limit.maxBodyBytes();
    }

    /**
     * Hooks {@code tenant} could send now, fractional (for {@code RateLimit} headers);
     * {@link Double#POSITIVE_INFINITY} when unlimited. Charges nothing.
     */
    public double remaining(String tenant) {
        Limit limit = effective(tenant).limit();
        if (limit == null) {
            return Double.POSITIVE_INFINITY;
        }
        return hookBuckets.remaining(tenant, limit.intervalNanos(), limit.toleranceNanos(), clock.nanoTime());
    }

    /** The configured default and every tenant with an override or a config entry, sorted by tenant id. */
    public Listing list() {
        TreeMap<String, EffectiveLimit> all = new TreeMap<>(config);
        all.putAll(overrides);
        List<Entry> entries = new ArrayList<>(all.size());
        all.forEach((tenant, e) -> entries.add(new Entry(tenant, e.limit(), e.source())));
        return new Listing(defaultLimit.limit(), Collections.unmodifiableList(entries));
    }

    // ------------------------------------------------------------------ charging

    /**
     * Charges one hook of {@code bytes} body bytes to {@code tenant}: first the hook
     * bucket, then, when the limit has {@code bytes_per_second} and {@code bytes > 0},
     * the byte bucket. A hook admitted by the hook bucket and then refused on bytes has
     * <b>spent its hook token</b> (the two charges are not one transaction; this matches
     * a sender that is within its count but over its volume, and keeps each bucket a
     * single CAS). A body bigger than {@code burst_bytes} is admitted only into a full
     * byte bucket and leaves it exactly empty.
     *
     * @return {@link TenantDecision#ADMITTED} (shared; no allocation) or a refusal naming
     *     the bucket and the wait
     */
    public TenantDecision hit(String tenant, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be at least 0, got " + bytes);
        }
        Limit limit = effective(tenant).limit();
        if (limit == null) {
            return TenantDecision.ADMITTED;
        }
        long now = clock.nanoTime();
        long wait = hookBuckets.tryCharge(tenant, limit.intervalNanos(), limit.toleranceNanos(), now);
        if (wait != 0) {
            return TenantDecision.refused(TenantDecision.Scope.TENANT, wait);
        }
        if (bytes > 0 && limit.hasByteBucket()) {
            wait = byteBuckets.tryCharge(tenant, limit.byteIncrementNanos(bytes), limit.byteToleranceNanos(), now);
            if (wait != 0) {
                return TenantDecision.refused(TenantDecision.Scope.TENANT_BYTES, wait);
            }
        }
        return TenantDecision.ADMITTED;
    }

    /** Sweeps the next shard of both bucket tables (full buckets are dropped); returns rows removed. */
    public int sweepNext(long now) {
        return hookBuckets.sweepNext(now) + byteBuckets.sweepNext(now);
    }

    /** Bucket rows held across both tables (a snapshot). */
    public int buckets() {
        return hookBuckets.size() + byteBuckets.size();
    }

    // ------------------------------------------------------------------ overrides

    /**
     * Sets {@code tenant}'s runtime override: it replaces the tenant's limit whole.
     * Written to the store first; on success memory follows and the tenant's buckets
     * are reset (without the reset a raised limit would stay blocked until the old
     * limit's debt drained).
     *
     * @throws OverrideStoreException when the store fails; nothing has changed
     */
    public void putOverride(String tenant, Limit limit) {
        requireTenant(tenant);
        Objects.requireNonNull(limit, "limit");
        EffectiveLimit effective = new EffectiveLimit(limit, LimitSource.OVERRIDE);
        synchronized (writeLock) {
            store.put(tenant, limit);
            overrides.put(tenant, effective);
            resetBuckets(tenant);
        }
    }

    /**
     * Removes {@code tenant}'s runtime override so the config's limit applies again, and
     * resets its buckets. False (and nothing reset) when there was none.
     *
     * @throws OverrideStoreException when the store fails; nothing has changed
     */
    public boolean deleteOverride(String tenant) {
        requireTenant(tenant);
        synchronized (writeLock) {
            boolean inStore = store.delete(tenant);
            boolean inMemory = overrides.remove(tenant) != null;
            if (inStore || inMemory) {
                resetBuckets(tenant);
                return true;
            }
            return false;
        }
    }

    private void resetBuckets(String tenant) {
        hookBuckets.reset(tenant);
        byteBuckets.reset(tenant);
    }
}

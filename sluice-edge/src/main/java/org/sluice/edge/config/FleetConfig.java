package org.sluice.edge.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * {@code fleet:} the Redis store shared by a fleet of nodes. Read only when
 * {@code rate_limits.scope} or {@code dedupe.scope} is {@code fleet}, but always validated.
 *
 * @param redis              {@code fleet.redis}, default {@code redis://127.0.0.1:6379}: one
 *                           URI, or a list of URIs of a Redis Cluster's nodes ({@code redis://}
 *                           or {@code rediss://})
 * @param timeoutMs          {@code fleet.timeout_ms}, default 20: the hard budget of one call
 * @param breakerFailureRate {@code fleet.breaker_failure_rate}, default 0.5 (0 &lt; r &lt;= 1)
 * @param breakerMinCalls    {@code fleet.breaker_min_calls}, default 20
 * @param breakerWindowMs    {@code fleet.breaker_window_ms}, default 10000
 * @param breakerOpenMs      {@code fleet.breaker_open_ms}, default 5000
 * @param pendingTtlMs       {@code fleet.pending_ttl_ms}, default 30000: lifetime of a pending claim
 * @param settleIntervalMs   {@code fleet.settle_interval_ms}, default 5
 * @param settleQueueMax     {@code fleet.settle_queue_max}, default 50000
 * @param fallback           {@code fleet.fallback}, default {@link FleetFallback#SHARE}
 */
public record FleetConfig(
        List<URI> redis,
        long timeoutMs,
        double breakerFailureRate,
        int breakerMinCalls,
        long breakerWindowMs,
        long breakerOpenMs,
        long pendingTtlMs,
        long settleIntervalMs,
        int settleQueueMax,
        FleetFallback fallback) {

    public static final URI DEFAULT_REDIS = URI.create("redis://127.0.0.1:6379");
    public static final long DEFAULT_TIMEOUT_MS = 20L;
    public static final double DEFAULT_BREAKER_FAILURE_RATE = 0.5;
    public static final int DEFAULT_BREAKER_MIN_CALLS = 20;
    public static final long DEFAULT_BREAKER_WINDOW_MS = 10_000L;
    public static final long DEFAULT_BREAKER_OPEN_MS = 5_000L;
    public static final long DEFAULT_PENDING_TTL_MS = 30_000L;
    public static final long DEFAULT_SETTLE_INTERVAL_MS = 5L;
    public static final int DEFAULT_SETTLE_QUEUE_MAX = 50_000;

    public FleetConfig {
        redis = List.copyOf(redis);
        Objects.requireNonNull(fallback, "fallback");
    }

    public static FleetConfig defaults() {
        return new FleetConfig(List.of(DEFAULT_REDIS), DEFAULT_TIMEOUT_MS, DEFAULT_BREAKER_FAILURE_RATE,
                DEFAULT_BREAKER_MIN_CALLS, DEFAULT_BREAKER_WINDOW_MS, DEFAULT_BREAKER_OPEN_MS,
                DEFAULT_PENDING_TTL_MS, DEFAULT_SETTLE_INTERVAL_MS, DEFAULT_SETTLE_QUEUE_MAX, FleetFallback.SHARE);
    }

    /** True when {@code fleet.redis} lists several URIs (a Redis Cluster). */
    public boolean isCluster() {
        return redis.size() > 1;
    }

    /** Never prints a password carried in a URI. */
    @Override
    public String toString() {
        return "FleetConfig[redis=" + redis.stream().map(FleetConfig::redact).toList()
                + ", timeoutMs=" + timeoutMs + ", breakerFailureRate=" + breakerFailureRate
                + ", breakerMinCalls=" + breakerMinCalls + ", breakerWindowMs=" + breakerWindowMs
                + ", breakerOpenMs=" + breakerOpenMs + ", pendingTtlMs=" + pendingTtlMs
                + ", settleIntervalMs=" + settleIntervalMs + ", settleQueueMax=" + settleQueueMax
                + ", fallback=" + fallback + "]";
    }

    /** A URI with any user-info replaced by {@code ***}, for logs. */
    public static String redact(URI uri) {
        if (uri.getRawUserInfo() == null) {
            return uri.toString();
        }
        return uri.getScheme() + "://***@" + uri.getRawAuthority().substring(uri.getRawAuthority().indexOf('@') + 1)
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }
}

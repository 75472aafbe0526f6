package org.sluice.fleet;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * The {@code fleet:} config block, one field per key, with the defaults in
 * {@link #defaults()}. The constructor validates every field and names the key and value
 * of the first bad one, so a bad config fails boot.
 *
 * @param redis              {@code fleet.redis}: one {@code redis://} URI, or the seed URIs of a Redis Cluster
 * @param cluster            true when {@code fleet.redis} was a list (Redis Cluster); a single URI is a standalone server
 * @param timeoutMs          {@code fleet.timeout_ms}: hard budget of one store call
 * @param breakerFailureRate {@code fleet.breaker_failure_rate}: share of failed calls that opens the breaker, in (0, 1]
 * @param breakerMinCalls    {@code fleet.breaker_min_calls}: calls the window needs before it may open
 * @param breakerWindowMs    {@code fleet.breaker_window_ms}: the sliding window the rate is measured over
 * @param breakerOpenMs      {@code fleet.breaker_open_ms}: how long it stays open before one probe
 * @param pendingTtlMs       {@code fleet.pending_ttl_ms}: life of an unsettled dedupe claim
 * @param settleIntervalMs   {@code fleet.settle_interval_ms}: how often the settle queue is drained
 * @param settleQueueMax     {@code fleet.settle_queue_max}: settle operations held at most; more are dropped
 * @param fallback           {@code fleet.fallback}: {@code share} (node-local fallback charges limit / live nodes) or {@code whole}
 */
public record FleetSettings(
        List<String> redis,
        boolean cluster,
        long timeoutMs,
        double breakerFailureRate,
        int breakerMinCalls,
        long breakerWindowMs,
        long breakerOpenMs,
        long pendingTtlMs,
        long settleIntervalMs,
        int settleQueueMax,
        Fallback fallback) {

    /** {@code fleet.fallback}. */
    public enum Fallback {
        SHARE, WHOLE;

        /** Parses {@code share} or {@code whole}. */
        public static Fallback parse(String value) {
            if (value != null) {
                switch (value.trim().toLowerCase(Locale.ROOT)) {
                    case "share":
                        return SHARE;
                    case "whole":
                        return WHOLE;
                    default:
                        break;
                }
            }
            throw new IllegalArgumentException("fleet.fallback must be share or whole, got " + value);
        }
    }

    public FleetSettings {
        if (redis == null || redis.isEmpty()) {
            throw new IllegalArgumentException("fleet.redis must be a redis:// URI or a non-empty list of them, got " + redis);
        }
        redis = List.copyOf(redis);
        for (int i = 0; i < redis.size(); i++) {
            checkUri(cluster ? "fleet.redis[" + i + "]" : "fleet.redis", redis.get(i));
        }
        if (!cluster && redis.size() != 1) {
            throw new IllegalArgumentException("fleet.redis must be one URI unless it is a cluster list, got "
                    + redis.stream().map(FleetSettings::masked).toList());
        }
        positive("fleet.timeout_ms", timeoutMs);
        if (!(breakerFailureRate > 0 && breakerFailureRate <= 1)) {
            throw new IllegalArgumentException("fleet.breaker_failure_rate must be in (0, 1], got " + breakerFailureRate);
        }
        positive("fleet.breaker_min_calls", breakerMinCalls);
        positive("fleet.breaker_window_ms", breakerWindowMs);
        positive("fleet.breaker_open_ms", breakerOpenMs);
        positive("fleet.pending_ttl_ms", pendingTtlMs);
        positive("fleet.settle_interval_ms", settleIntervalMs);
        positive("fleet.settle_queue_max", settleQueueMax);
        if (fallback == null) {
            throw new IllegalArgumentException("fleet.fallback must be share or whole, got null");
        }
    }

    private static void positive(String key, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be an integer of at least 1, got " + value);
        }
    }

    private static void checkUri(String key, String value) {
        URI uri;
        try {
            uri = value == null ? null : URI.create(value.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be a redis:// or rediss:// URI, got " + masked(value));
        }
        if (uri == null || uri.getScheme() == null
                || !(uri.getScheme().equals("redis") || uri.getScheme().equals("rediss"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException(key + " must be a redis:// or rediss:// URI with a host, got "
                    + masked(value));
        }
    }

    /** A URI with any user/password part replaced by its length, for messages and logs. */
    static String masked(String value) {
        if (value == null) {
            return "null";
        }
        int scheme = value.indexOf("://");
        int at = value.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return value;
        }
        int start = scheme + 3;
        return value.substring(0, start) + "(" + (at - start) + "-character credentials)" + value.substring(at);
    }

    /** Like the record's, with credentials in {@code redis} masked. */
    @Override
    public String toString() {
        return "FleetSettings[redis=" + redis.stream().map(FleetSettings::masked).toList() + ", cluster=" + cluster
                + ", timeoutMs=" + timeoutMs + ", breakerFailureRate=" + breakerFailureRate
                + ", breakerMinCalls=" + breakerMinCalls + ", breakerWindowMs=" + breakerWindowMs
                + ", breakerOpenMs=" + breakerOpenMs + ", pendingTtlMs=" + pendingTtlMs
                + ", settleIntervalMs=" + settleIntervalMs + ", settleQueueMax=" + settleQueueMax
                + ", fallback=" + fallback + "]";
    }

    /** The defaults: {@code redis://127.0.0.1:6379}, 20 ms, 0.5, 20, 10 s, 5 s, 30 s, 5 ms, 50,000, share. */
    public static FleetSettings defaults() {
        return new FleetSettings(List.of("redis://127.0.0.1:6379"), false, 20, 0.5, 20, 10_000, 5_000,
                30_000, 5, 50_000, Fallback.SHARE);
    }

    /** These settings against one standalone server. */
    public FleetSettings withRedis(String uri) {
        return new FleetSettings(List.of(uri), false, timeoutMs, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, pendingTtlMs, settleIntervalMs, settleQueueMax, fallback);
    }

    /** These settings against a Redis Cluster reached through these seed URIs. */
    public FleetSettings withClusterRedis(List<String> uris) {
        return new FleetSettings(uris, true, timeoutMs, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, pendingTtlMs, settleIntervalMs, settleQueueMax, fallback);
    }

    public FleetSettings withTimeoutMs(long value) {
        return new FleetSettings(redis, cluster, value, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, pendingTtlMs, settleIntervalMs, settleQueueMax, fallback);
    }

    public FleetSettings withBreaker(double failureRate, int minCalls, long windowMs, long openMs) {
        return new FleetSettings(redis, cluster, timeoutMs, failureRate, minCalls,
                windowMs, openMs, pendingTtlMs, settleIntervalMs, settleQueueMax, fallback);
    }

    public FleetSettings withPendingTtlMs(long value) {
        return new FleetSettings(redis, cluster, timeoutMs, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, value, settleIntervalMs, settleQueueMax, fallback);
    }

    public FleetSettings withSettle(long intervalMs, int queueMax) {
        return new FleetSettings(redis, cluster, timeoutMs, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, pendingTtlMs, intervalMs, queueMax, fallback);
    }

    public FleetSettings withFallback(Fallback value) {
        return new FleetSettings(redis, cluster, timeoutMs, breakerFailureRate, breakerMinCalls,
                breakerWindowMs, breakerOpenMs, pendingTtlMs, settleIntervalMs, settleQueueMax, value);
    }
}

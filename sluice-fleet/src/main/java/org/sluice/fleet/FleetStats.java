package org.sluice.fleet;

/**
 * A snapshot for {@code GET /v1/admission} and the metrics. Counters are totals since
 * start.
 *
 * @param breaker           the breaker's state
 * @param degradedRateLimit rate limits are answered node-local right now
 * @param degradedDedupe    dedupe claims are answered node-local right now
 * @param liveNodes         last known number of live nodes (heartbeats), at least 1
 * @param fallbackRateLimit {@code sluice_fleet_fallback_total{kind="rate_limit"}}
 * @param fallbackDedupe    {@code sluice_fleet_fallback_total{kind="dedupe"}}
 * @param fallbackBreakerOpen calls answered node-local because the breaker was open
 * @param fallbackTimeout   calls that exceeded the budget
 * @param fallbackError     calls that failed
 * @param storeCalls        admission calls sent to the store
 * @param settleQueued      settle operations accepted into the queue
 * @param settlePromoted    claims promoted to committed
 * @param settleReleased    claims released
 * @param settleSkipped     settle operations that found the key held by another claim (left alone)
 * @param settleDropped     settle operations dropped because the queue was full
 * @param settleFailed      settle operations whose batch failed (lost like a drop)
 * @param settleQueueDepth  settle operations waiting now
 */
public record FleetStats(
        BreakerState breaker,
        boolean degradedRateLimit,
        boolean degradedDedupe,
        int liveNodes,
        long fallbackRateLimit,
        long fallbackDedupe,
        long fallbackBreakerOpen,
        long fallbackTimeout,
        long fallbackError,
        long storeCalls,
        long settleQueued,
        long settlePromoted,
        long settleReleased,
        long settleSkipped,
        long settleDropped,
        long settleFailed,
        int settleQueueDepth) {
}

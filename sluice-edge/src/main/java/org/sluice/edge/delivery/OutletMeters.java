package org.sluice.edge.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One destination's meters (docs/metrics.md): {@code sluice_delivery_attempts_total} by what
 * became of the delivery, {@code sluice_delivery_latency_seconds} (an attempt's round trip)
 * and {@code sluice_delivery_lag_seconds} (receipt to delivery). Its {@link Outlet} records
 * into them from the transports' threads and the answer recorder; Micrometer's meters are
 * thread-safe.
 */
final class OutletMeters {

    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(60)
    };
    private static final Duration[] LAG_BUCKETS = {
        Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5),
        Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(12), Duration.ofDays(3)
    };

    private final Counter delivered;
    private final Counter retry;
    private final Counter dead;
    private final Timer latency;
    private final Timer lag;

    OutletMeters(String destination, MeterRegistry registry) {
        this.delivered = attempts(registry, destination, "delivered");
        this.retry = attempts(registry, destination, "retry");
        this.dead = attempts(registry, destination, "dead");
        this.latency = Timer.builder("sluice.delivery.latency")
                .description("Round trip of one delivery attempt, connect included")
                .tag("destination", destination).serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
        this.lag = Timer.builder("sluice.delivery.lag")
                .description("From a hook's receipt to its delivery")
                .tag("destination", destination).serviceLevelObjectives(LAG_BUCKETS).register(registry);
    }

    private static Counter attempts(MeterRegistry registry, String destination, String outcome) {
        return Counter.builder("sluice.delivery.attempts")
                .description("Delivery attempts, by what became of the delivery")
                .tag("destination", destination).tag("outcome", outcome).register(registry);
    }

    /** An attempt's round trip, from its start to its answer ({@link org.sluice.core.Clock} nanoseconds). */
    void answered(long startNanos, long endNanos) {
        latency.record(Math.max(0, endNanos - startNanos), TimeUnit.NANOSECONDS);
    }

    /** A delivery delivered at {@code nowMs}, of a hook received at {@code receivedAtMs}. */
    void delivered(long nowMs, long receivedAtMs) {
        delivered.increment();
        lag.record(Math.max(0, nowMs - receivedAtMs), TimeUnit.MILLISECONDS);
    }

    /** An attempt failed and its delivery goes on (a retry). */
    void retry() {
        retry.increment();
    }

    /** A delivery given up (a dead letter). */
    void dead() {
        dead.increment();
    }
}

package org.sluice.edge.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.sluice.core.Clock;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.stats.StatsRing;

/**
 * The request path's meters, created once at boot so the hot path only increments:
 * {@code sluice_ingest_requests_total{outcome}}, {@code sluice_admission_refusals_total{scope}}
 * and {@code sluice_ingest_duration_seconds}. Label values come from {@link IngestOutcome} and
 * {@link RefusalScope} only, never from a request. The same events feed the per-second
 * {@link StatsRing} behind {@code GET /v1/stats/timeseries}.
 */
public final class IngestMetrics {

    /** Fixed histogram buckets: a dozen series, enough to read p50 and p99 from. */
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15)
    };

    private final Map<IngestOutcome, Counter> requests = new EnumMap<>(IngestOutcome.class);
    private final Map<RefusalScope, Counter> refusals = new EnumMap<>(RefusalScope.class);
    private final Timer duration;
    private final Clock clock;
    private final StatsRing ring;
    private final StatsRing.Series[] ringByOutcome = new StatsRing.Series[IngestOutcome.values().length];
    private final StatsRing.Series[] ringByScope = new StatsRing.Series[RefusalScope.values().length];

    public IngestMetrics(MeterRegistry registry, Clock clock, StatsRing ring) {
        this.clock = clock;
        this.ring = ring;
        ringByOutcome[IngestOutcome.ACCEPTED.ordinal()] = StatsRing.Series.ACCEPTED;
        ringByOutcome[IngestOutcome.DUPLICATE.ordinal()] = StatsRing.Series.DUPLICATE;
        ringByOutcome[IngestOutcome.VERIFICATION_FAILED.ordinal()] = StatsRing.Series.VERIFICATION_FAILED;
        for (RefusalScope scope : RefusalScope.values()) {
            ringByScope[scope.ordinal()] = StatsRing.Series.valueOf("REFUSED_" + scope.name());
        }
        for (IngestOutcome outcome : IngestOutcome.values()) {
            requests.put(outcome, Counter.builder("sluice.ingest.requests")
                    .description("Ingest requests answered, by outcome")
                    .tag("outcome", outcome.label)
                    .register(registry));
        }
        for (RefusalScope scope : RefusalScope.values()) {
            refusals.put(scope, Counter.builder("sluice.admission.refusals")
                    .description("Admission refusals by the layer that refused (counted in shadow mode too)")
                    .tag("scope", scope.label)
                    .register(registry));
        }
        duration = Timer.builder("sluice.ingest.duration")
                .description("Time from a request's headers to its answer")
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    void answered(IngestOutcome outcome, long startNanos) {
        requests.get(outcome).increment();
        StatsRing.Series series = ringByOutcome[outcome.ordinal()];
        if (series != null) {
            ring.add(series);
        }
        if (startNanos != 0L && outcome != IngestOutcome.PROBE) {
            duration.record(Math.max(0L, clock.nanoTime() - startNanos), TimeUnit.NANOSECONDS);
        }
    }

    void refused(RefusalScope scope) {
        refusals.get(scope).increment();
        ring.add(ringByScope[scope.ordinal()]);
    }

    double count(IngestOutcome outcome) {
        return requests.get(outcome).count();
    }

    double count(RefusalScope scope) {
        return refusals.get(scope).count();
    }
}

package org.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Limiter;

/** The meters a real registry holds after known calls on a manual clock: exact counts, no key in any tag. */
class LimiterMetricsTest {

    private final AtomicLong now = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String name, String outcome) {
        return registry.get(name).tag("limiter", "api").tag("outcome", outcome).counter().count();
    }

    @Test
    void aKeyedLimitersDecisionsAreCountedByOutcomeOnly() {
        LimiterMetrics metrics = new LimiterMetrics("api");
        metrics.bindTo(registry);
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder().bandwidth(Limit.of(10, 3)).clock(now::get)
                .sweepInterval(Duration.ZERO).listener(metrics).build();
        for (int key = 0; key < 50; key++) {
            limiter.tryAcquire("tenant-" + key, 3);
            limiter.tryAcquire("tenant-" + key, 2);
        }
        assertThat(count("sluice.limiter.calls", "admitted")).isEqualTo(50.0);
        assertThat(count("sluice.limiter.calls", "refused")).isEqualTo(50.0);
        assertThat(count("sluice.limiter.permits", "admitted")).isEqualTo(150.0);
        assertThat(count("sluice.limiter.permits", "refused")).isEqualTo(100.0);
        now.addAndGet(300_000_000L);
        for (int s = 0; s < 64; s++) {
            limiter.sweepTick();
        }
        assertThat(registry.get("sluice.limiter.swept").counter().count()).isEqualTo(50.0);
        for (Meter meter : registry.getMeters()) {
            assertThat(meter.getId().getTags()).as(meter.getId().getName())
                    .allSatisfy(tag -> assertThat(tag.getKey()).isIn("limiter", "outcome"));
        }
        assertThat(registry.getMeters()).hasSize(8);
    }

    /** The shared-memory limiter's two events (sluice-shm's tests make them happen; here, the meters they reach). */
    @Test
    void evictionsAndContendedChargesAreCounted() {
        LimiterMetrics metrics = new LimiterMetrics("api");
        metrics.bindTo(registry);
        metrics.evicted();
        metrics.evicted();
        metrics.contended();
        assertThat(registry.get("sluice.limiter.evicted").tag("limiter", "api").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("sluice.limiter.contended").tag("limiter", "api").counter().count()).isEqualTo(1.0);
    }

    @Test
    void waitsAreRecordedInNanoseconds() {
        LimiterMetrics metrics = new LimiterMetrics("api");
        metrics.bindTo(registry);
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 2)).clock(now::get).listener(metrics).build();
        limiter.reserve(2);
        limiter.reserve(2);
        var waits = registry.get("sluice.limiter.wait").tag("limiter", "api").summary();
        assertThat(waits.count()).isEqualTo(1L);
        assertThat(waits.totalAmount()).isEqualTo(200_000_000.0);
    }

    @Test
    void eventsBeforeBindingAreNotCountedAndTheNameIsChecked() {
        LimiterMetrics metrics = new LimiterMetrics("api");
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 2)).clock(now::get).listener(metrics).build();
        limiter.tryAcquire();
        metrics.bindTo(registry);
        limiter.tryAcquire();
        assertThat(count("sluice.limiter.calls", "admitted")).isEqualTo(1.0);
        assertThatThrownBy(() -> new LimiterMetrics(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }
}

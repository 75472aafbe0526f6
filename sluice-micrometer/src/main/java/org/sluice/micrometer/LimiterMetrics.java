package org.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limiter;
import org.sluice.core.LimiterListener;

/**
 * Micrometer meters for one {@link Limiter} or {@link KeyedLimiter} (or any scope's
 * {@code KeyedLimit}: the shared-memory and Redis limiters take a listener too): a {@link
 * LimiterListener} to pass to the limiter's builder, and a {@link MeterBinder} to bind
 * to a registry.
 *
 * <pre>
 * LimiterMetrics metrics = new LimiterMetrics("api");
 * metrics.bindTo(registry);
 * KeyedLimiter&lt;String&gt; limiter = KeyedLimiter.&lt;String&gt;builder()
 *     .bandwidth(Limit.of(100, 100)).listener(metrics).build();
 * </pre>
 *
 * <table>
 *   <caption>Meters (every one tagged {@code limiter=<name>})</caption>
 *   <tr><th>name</th><th>type</th><th>extra tag</th><th>counts</th></tr>
 *   <tr><td>{@code sluice.limiter.calls}</td><td>counter</td><td>{@code outcome=admitted|refused}</td><td>charge attempts</td></tr>
 *   <tr><td>{@code sluice.limiter.permits}</td><td>counter</td><td>{@code outcome=admitted|refused}</td><td>permits asked for</td></tr>
 *   <tr><td>{@code sluice.limiter.wait}</td><td>summary, base unit nanoseconds</td><td></td><td>each wait a caller was made to take</td></tr>
 *   <tr><td>{@code sluice.limiter.swept}</td><td>counter</td><td></td><td>keyed rows deleted by the sweep</td></tr>
 *   <tr><td>{@code sluice.limiter.evicted}</td><td>counter</td><td></td><td>keys in debt whose slot a new key took (shared memory)</td></tr>
 *   <tr><td>{@code sluice.limiter.contended}</td><td>counter</td><td></td><td>charges admitted uncharged under contention (shared memory)</td></tr>
 * </table>
 * The tags are bounded: the limiter's name and an outcome of two values. No key is ever a
 * tag, since a keyed limiter's keys are unbounded (a flood of invented keys would be a
 * flood of time series).
 *
 * <p>Events that arrive before {@link #bindTo} are not counted. Each event is one
 * increment of a meter made at binding (no lookup, no allocation on the limiter's path).
 */
public final class LimiterMetrics implements LimiterListener, MeterBinder {

    private final String name;
    private volatile Meters meters;

    /** @param name the value of the {@code limiter} tag: one name per limiter, not per key */
    public LimiterMetrics(String name) {
        this.name = Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank, got '" + name + "'");
        }
    }

    private record Meters(Counter admittedCalls, Counter refusedCalls, Counter admittedPermits, Counter refusedPermits,
                          DistributionSummary waits, Counter swept, Counter evicted, Counter contended) {
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("limiter", name);
        meters = new Meters(
                calls(registry, tags, "admitted"),
                calls(registry, tags, "refused"),
                permits(registry, tags, "admitted"),
                permits(registry, tags, "refused"),
                DistributionSummary.builder("sluice.limiter.wait").baseUnit("nanoseconds")
                        .description("Waits callers were made to take (blocking acquire, reservations)")
                        .tags(tags).register(registry),
                Counter.builder("sluice.limiter.swept").description("Keyed rows deleted by the sweep")
                        .tags(tags).register(registry),
                Counter.builder("sluice.limiter.evicted").description("Keys in debt whose slot a new key took")
                        .tags(tags).register(registry),
                Counter.builder("sluice.limiter.contended").description("Charges admitted uncharged under contention")
                        .tags(tags).register(registry));
    }

    private static Counter calls(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("sluice.limiter.calls").description("Charge attempts by outcome")
                .tags(tags).tag("outcome", outcome).register(registry);
    }

    private static Counter permits(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("sluice.limiter.permits").description("Permits asked for, by outcome")
                .tags(tags).tag("outcome", outcome).register(registry);
    }

    @Override
    public void admitted(long permits) {
        Meters m = meters;
        if (m != null) {
            m.admittedCalls.increment();
            m.admittedPermits.increment(permits);
        }
    }

    @Override
    public void refused(long permits, long waitNanos) {
        Meters m = meters;
        if (m != null) {
            m.refusedCalls.increment();
            m.refusedPermits.increment(permits);
        }
    }

    @Override
    public void waited(long nanos) {
        Meters m = meters;
        if (m != null) {
            m.waits.record(nanos);
        }
    }

    @Override
    public void swept(int rows) {
        Meters m = meters;
        if (m != null) {
            m.swept.increment(rows);
        }
    }

    @Override
    public void evicted() {
        Meters m = meters;
        if (m != null) {
            m.evicted.increment();
        }
    }

    @Override
    public void contended() {
        Meters m = meters;
        if (m != null) {
            m.contended.increment();
        }
    }
}

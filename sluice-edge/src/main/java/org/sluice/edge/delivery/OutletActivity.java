package org.sluice.edge.delivery;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.sluice.edge.store.DestinationBacklog;
import org.sluice.edge.store.HookStore;

/**
 * What a dispatcher shows of each destination: its activity for the admin API
 * ({@link #of}) and its gauges ({@code sluice.delivery.pending}, {@code .dead},
 * {@code .oldest.pending}, {@code .breaker.open}, and {@code .pace.per.second} for a paced
 * one). Reads only; any thread.
 */
final class OutletActivity implements DeliveryActivity {

    private final Map<String, Outlet> outlets;
    private final HookStore store;
    private final LongSupplier wallMillis;

    OutletActivity(Map<String, Outlet> outlets, HookStore store, LongSupplier wallMillis, MeterRegistry registry) {
        this.outlets = outlets;
        this.store = store;
        this.wallMillis = wallMillis;
        for (Outlet outlet : outlets.values()) {
            register(outlet, registry);
        }
    }

    @Override
    public Optional<DestinationActivity> of(String destination) {
        Outlet outlet = outlets.get(destination);
        if (outlet == null) {
            return Optional.empty();
        }
        // during a pass the slot count also holds the answers just recorded, until the pass's picks
        // have taken their slots over: those attempts are over, and never more than max_in_flight are out
        return Optional.of(new DestinationActivity(outlet.inFlightCapped(), outlet.breakerHolding(), outlet.delivered.get(),
                outlet.failed.get(), outlet.pacer != null ? outlet.pacer.perSecond() : Double.NaN));
    }

    /** The configured destinations, in configuration order. */
    List<Destination> destinations() {
        Collection<Outlet> all = outlets.values();
        List<Destination> out = new ArrayList<>(all.size());
        all.forEach(o -> out.add(o.destination));
        return out;
    }

    private void register(Outlet outlet, MeterRegistry registry) {
        String name = outlet.name;
        Gauge.builder("sluice.delivery.pending", outlet, o -> counts(o).map(c -> (double) c.pending()).orElse(Double.NaN))
                .description("Deliveries to the destination not yet delivered nor dead")
                .tag("destination", name).strongReference(true).register(registry);
        Gauge.builder("sluice.delivery.dead", outlet, o -> counts(o).map(c -> (double) c.dead()).orElse(Double.NaN))
                .description("Dead letters to the destination kept in the store")
                .tag("destination", name).strongReference(true).register(registry);
        Gauge.builder("sluice.delivery.oldest.pending", outlet,
                        o -> counts(o).map(c -> c.oldestPendingAgeMillis() / 1000.0).orElse(Double.NaN))
                .description("Age of the oldest hook with a pending delivery to the destination")
                .baseUnit("seconds").tag("destination", name).strongReference(true).register(registry);
        Gauge.builder("sluice.delivery.breaker.open", outlet, o -> o.breakerHolding() ? 1 : 0)
                .description("1 while the destination's breaker holds attempts back")
                .tag("destination", name).strongReference(true).register(registry);
        if (outlet.pacer != null) {
            Gauge.builder("sluice.delivery.pace.per.second", outlet.pacer, Pacer::perSecond)
                    .description("The destination's pace now, attempts per second: its fixed rate, or where its adaptive "
                            + "pace stands on this node")
                    .tag("destination", name).strongReference(true).register(registry);
        }
    }

    private Optional<DestinationBacklog> counts(Outlet outlet) {
        try {
            return store.isOpen() ? Optional.of(store.deliveries().counts(outlet.name, wallMillis.getAsLong()))
                    : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}

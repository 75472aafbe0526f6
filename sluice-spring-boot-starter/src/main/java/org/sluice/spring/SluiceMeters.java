package org.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.sluice.core.LimiterListener;
import org.sluice.micrometer.LimiterMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * sluice-micrometer's {@link LimiterMetrics} for every in-memory route (the meters tagged
 * {@code limiter=<route name>}), bound to the application's {@link MeterRegistry} once
 * every singleton exists, so the registry may come from Boot's actuator or from the
 * application itself. Bound here rather than as {@code MeterBinder} beans, which only
 * the actuator binds; no request is served before the binding.
 */
final class SluiceMeters implements RouteListeners, SmartInitializingSingleton {

    private final ObjectProvider<MeterRegistry> registry;
    private final List<LimiterMetrics> metrics = new CopyOnWriteArrayList<>();

    SluiceMeters(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public LimiterListener forRoute(String route) {
        LimiterMetrics m = new LimiterMetrics(route);
        metrics.add(m);
        return m;
    }

    @Override
    public void afterSingletonsInstantiated() {
        MeterRegistry r = registry.getIfUnique();
        if (r != null) {
            for (LimiterMetrics m : metrics) {
                m.bindTo(r);
            }
        }
    }
}

package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** Which beans the auto-configuration makes in which application, without a server. */
class AutoConfigurationTest {

    private static final String[] ROUTE = {
        "sluice.limiter.routes.api.paths=/api/**",
        "sluice.limiter.routes.api.bandwidths[0].rate=5",
        "sluice.limiter.routes.api.bandwidths[0].burst=5",
    };
    private static final AutoConfigurations SLUICE = AutoConfigurations.of(SluiceLimiterAutoConfiguration.class);

    @Test
    void aServletApplicationGetsTheServletFilterAndAReactiveOneTheWebFilter() {
        new WebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE).run(context -> {
            assertThat(context).hasSingleBean(SluiceServletFilter.class);
            assertThat(context).doesNotHaveBean(SluiceWebFilter.class);
        });
        new ReactiveWebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE).run(context -> {
            assertThat(context).hasSingleBean(SluiceWebFilter.class);
            assertThat(context).doesNotHaveBean(SluiceServletFilter.class);
        });
        new ApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE).run(context -> {
            assertThat(context).hasSingleBean(SluiceRoutes.class);
            assertThat(context).doesNotHaveBean(SluiceServletFilter.class);
            assertThat(context).doesNotHaveBean(SluiceWebFilter.class);
        });
    }

    @Test
    void enabledFalseRegistersNothing() {
        new WebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE)
                .withPropertyValues("sluice.limiter.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(SluiceRoutes.class);
                    assertThat(context).doesNotHaveBean(SluiceServletFilter.class);
                });
    }

    @Test
    void aBadSettingFailsTheApplicationWithItsKey() {
        new WebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE)
                .withPropertyValues("sluice.limiter.routes.api.bandwidths[0].burst=0")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessage("sluice.limiter.routes.api.bandwidths[0].burst must be an integer of at least 1, got 0");
                });
    }

    @Test
    void withoutMicrometerOrSluiceShmTheMemoryScopeStillStarts() {
        new WebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE)
                .withClassLoader(new FilteredClassLoader("io.micrometer.", "org.sluice.shm.", "org.sluice.micrometer."))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(SluiceServletFilter.class);
                    assertThat(context).doesNotHaveBean(SluiceMeters.class);
                });
    }

    @Test
    void aMeterRegistryBeanGetsEachRoutesMeters() {
        new WebApplicationContextRunner().withConfiguration(SLUICE).withPropertyValues(ROUTE)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    SluiceRoutes routes = context.getBean(SluiceRoutes.class);
                    routes.routes().get(0).limit().tryAcquire("addr:192.0.2.1", 1);
                    assertThat(context.getBean(MeterRegistry.class).get("sluice.limiter.calls")
                            .tag("limiter", "api").tag("outcome", "admitted").counter().count()).isEqualTo(1.0);
                });
    }
}

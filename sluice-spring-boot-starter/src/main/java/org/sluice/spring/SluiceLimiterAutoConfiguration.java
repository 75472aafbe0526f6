package org.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.sluice.core.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Sluice's limiters from {@code sluice.limiter.*} ({@link SluiceLimiterProperties}): the
 * routes and their limiters, a servlet filter in a servlet application, a WebFlux {@code
 * WebFilter} in a reactive one, and sluice-micrometer's meters (tagged {@code
 * limiter=<route>}) when Micrometer is on the classpath and a {@code MeterRegistry} bean
 * exists. The limiters read the application's {@code org.sluice.core.Clock} bean when it
 * has one (a test's manual clock), else the system's; in the {@code redis} scope that bean,
 * when there is one, is also the charges' time instead of Redis's. {@code sluice.limiter.enabled:
 * false} turns it all off.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "sluice.limiter", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(SluiceLimiterProperties.class)
public class SluiceLimiterAutoConfiguration {

    /** The routes and their limiters; closed (the shared-memory arena unmapped) with the context. */
    @Bean(destroyMethod = "close")
    SluiceRoutes sluiceRoutes(SluiceLimiterProperties properties, ObjectProvider<Clock> clock,
                              ObjectProvider<RouteListeners> listeners, Environment environment) {
        Clock application = clock.getIfAvailable();
        return SluiceRoutes.build(properties, application != null ? application : Clock.system(), application,
                listeners.getIfAvailable(), environment.getProperty("spring.application.name"));
    }

    /** Meters when Micrometer is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class Meters {

        @Bean
        SluiceMeters sluiceMeters(ObjectProvider<MeterRegistry> registry) {
            return new SluiceMeters(registry);
        }
    }

    /** The servlet stack's filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    static class Servlet {

        @Bean
        SluiceServletFilter sluiceServletFilter(SluiceRoutes routes, SluiceLimiterProperties properties) {
            return new SluiceServletFilter(routes, properties.getFilterOrder());
        }
    }

    /** The WebFlux stack's filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
    static class Reactive {

        @Bean
        SluiceWebFilter sluiceWebFilter(SluiceRoutes routes, SluiceLimiterProperties properties) {
            return new SluiceWebFilter(routes, properties.getFilterOrder());
        }
    }
}

package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.springframework.http.server.PathContainer;

/** The checks {@link SluiceRoutes} makes at startup, each naming the key at fault; and route matching. */
class SluiceRoutesTest {

    private static SluiceLimiterProperties.Bandwidth bandwidth(double rate, Duration period, int burst) {
        SluiceLimiterProperties.Bandwidth b = new SluiceLimiterProperties.Bandwidth();
        b.setRate(rate);
        b.setPeriod(period);
        b.setBurst(burst);
        return b;
    }

    private static SluiceLimiterProperties withRoute(String name, SluiceLimiterProperties.Route route) {
        SluiceLimiterProperties properties = new SluiceLimiterProperties();
        properties.getRoutes().put(name, route);
        return properties;
    }

    private static SluiceLimiterProperties.Route route(String path, SluiceLimiterProperties.Bandwidth... bandwidths) {
        SluiceLimiterProperties.Route route = new SluiceLimiterProperties.Route();
        route.setPaths(List.of(path));
        route.setBandwidths(new ArrayList<>(List.of(bandwidths)));
        return route;
    }

    private static SluiceRoutes build(SluiceLimiterProperties properties) {
        return SluiceRoutes.build(properties, Clock.system(), null);
    }

    @Test
    void aBadBandwidthIsRefusedWithItsKey() {
        assertThatThrownBy(() -> build(withRoute("api", route("/api/**", bandwidth(10, Duration.ofSeconds(1), 0)))))
                .hasMessage("sluice.limiter.routes.api.bandwidths[0].burst must be an integer of at least 1, got 0");
        assertThatThrownBy(() -> build(withRoute("api", route("/api/**", bandwidth(10, Duration.ofSeconds(1), 1),
                bandwidth(-1, Duration.ofSeconds(1), 5)))))
                .hasMessageStartingWith("sluice.limiter.routes.api.bandwidths[1].rate must be a number greater than 0");
        assertThatThrownBy(() -> build(withRoute("api", route("/api/**", bandwidth(10, Duration.ZERO, 1)))))
                .hasMessage("sluice.limiter.routes.api.bandwidths[0].period must be a positive duration, got PT0S");
        assertThatThrownBy(() -> build(withRoute("api", route("/api/**"))))
                .hasMessage("sluice.limiter.routes.api.bandwidths must hold at least one bandwidth, got none");
    }

    @Test
    void aHeaderKeyNeedsItsHeaderAndANameMustBeAToken() {
        SluiceLimiterProperties.Route byHeader = route("/api/**", bandwidth(1, Duration.ofSeconds(1), 1));
        byHeader.setKey(SluiceLimiterProperties.Key.HEADER);
        assertThatThrownBy(() -> build(withRoute("api", byHeader)))
                .hasMessage("sluice.limiter.routes.api.header must name a header when key is header, got none");
        assertThatThrownBy(() -> build(withRoute("a b", route("/**", bandwidth(1, Duration.ofSeconds(1), 1)))))
                .hasMessage("sluice.limiter.routes.<name> must be letters, digits, - _ or ., got a b");
    }

    @Test
    void theRedisScopeNeedsARedisUriAndATimeout() {
        SluiceLimiterProperties properties = withRoute("api", route("/api/**", bandwidth(1, Duration.ofSeconds(1), 1)));
        properties.setScope(SluiceLimiterProperties.Scope.REDIS);
        assertThatThrownBy(() -> build(properties))
                .hasMessage("sluice.limiter.redis.uri must be a redis:// or rediss:// URI in the redis scope, got none");
        properties.getRedis().setUri("http://admin:s3cret@cache:6379");
        assertThatThrownBy(() -> build(properties))
                .hasMessage("sluice.limiter.redis.uri must be a redis:// or rediss:// URI in the redis scope, got http://...");
        properties.getRedis().setUri("admin:s3cret@cache:6379");
        assertThatThrownBy(() -> build(properties)).hasMessageEndingWith("got a value with no scheme");
        properties.getRedis().setUri("redis://127.0.0.1:1");
        properties.getRedis().setTimeoutMs(0);
        assertThatThrownBy(() -> build(properties)).hasMessage("sluice.limiter.redis.timeout-ms must be at least 1, got 0");
    }

    @Test
    void theFirstMatchingRouteInOrderCountsARequest() throws Exception {
        SluiceLimiterProperties properties = new SluiceLimiterProperties();
        properties.getRoutes().put("orders", route("/api/orders/{id}", bandwidth(1, Duration.ofSeconds(1), 1)));
        properties.getRoutes().put("api", route("/api/**", bandwidth(1, Duration.ofSeconds(1), 1)));
        try (SluiceRoutes routes = build(properties)) {
            assertThat(routes.match(PathContainer.parsePath("/api/orders/7")).name()).isEqualTo("orders");
            assertThat(routes.match(PathContainer.parsePath("/api/orders")).name()).isEqualTo("api");
            assertThat(routes.match(PathContainer.parsePath("/health"))).isNull();
        }
    }
}

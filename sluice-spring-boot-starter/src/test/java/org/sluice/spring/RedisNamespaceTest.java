package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.testkit.RedisServer;

/**
 * The redis scope's namespace: routes of one name in two applications sharing one real
 * redis-server keep their buckets apart, named {@code <namespace>.<route>}, the namespace
 * set or taken from the application's name; a bad one fails the start naming its key.
 */
class RedisNamespaceTest {

    private static final RedisServer REDIS = RedisServer.start();

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    /** One route {@code api}, one request a minute and a burst of one, in the redis scope. */
    private static SluiceLimiterProperties properties(String namespace) {
        SluiceLimiterProperties.Bandwidth bandwidth = new SluiceLimiterProperties.Bandwidth();
        bandwidth.setRate(1);
        bandwidth.setPeriod(Duration.ofMinutes(1));
        bandwidth.setBurst(1);
        SluiceLimiterProperties.Route route = new SluiceLimiterProperties.Route();
        route.setPaths(List.of("/api/**"));
        route.setBandwidths(new ArrayList<>(List.of(bandwidth)));
        SluiceLimiterProperties properties = new SluiceLimiterProperties();
        properties.setScope(SluiceLimiterProperties.Scope.REDIS);
        properties.getRedis().setUri(REDIS.uri());
        properties.getRedis().setTimeoutMs(5_000);
        properties.getRedis().setNamespace(namespace);
        properties.getRoutes().put("api", route);
        return properties;
    }

    private static SluiceRoutes build(String namespace, String applicationName) {
        return SluiceRoutes.build(properties(namespace), Clock.system(), null, null, applicationName);
    }

    private static KeyedLimit<String> api(SluiceRoutes routes) {
        return routes.routes().get(0).limit();
    }

    @Test
    void twoApplicationsWithARouteOfOneNameKeepTheirBucketsApart() throws Exception {
        try (SluiceRoutes shop = build("shop", null); SluiceRoutes billing = build(null, "billing");
             SluiceRoutes shopAgain = build("shop", "ignored-when-a-namespace-is-set")) {
            assertThat(api(shop).tryAcquire("addr:10.0.0.7", 1)).isZero();
            assertThat(api(shop).tryAcquire("addr:10.0.0.7", 1)).as("the burst of one is spent").isPositive();
            assertThat(api(billing).tryAcquire("addr:10.0.0.7", 1)).as("another application's bucket").isZero();
            assertThat(api(shopAgain).tryAcquire("addr:10.0.0.7", 1)).as("the same namespace shares the bucket").isPositive();
        }
        assertThat(REDIS.call("KEYS", "sluice:{l:shop.api:*")).asString().contains("sluice:{l:shop.api:");
        assertThat(REDIS.call("KEYS", "sluice:{l:billing.api:*")).asString().contains("sluice:{l:billing.api:");
        assertThat(REDIS.call("KEYS", "sluice:{l:ignored-when-a-namespace-is-set.api:*")).asString().doesNotContain("ignored");
    }

    @Test
    void withNeitherANamespaceNorAnApplicationNameTheRouteNamesTheLimiter() throws Exception {
        try (SluiceRoutes plain = build(null, null)) {
            assertThat(api(plain).tryAcquire("addr:10.0.0.8", 1)).isZero();
        }
        assertThat(REDIS.call("KEYS", "sluice:{l:api:*")).asString().contains("sluice:{l:api:");
    }

    @Test
    void aBadNamespaceFailsTheStartNamingItsKey() {
        assertThatThrownBy(() -> build("a b", null))
                .hasMessage("sluice.limiter.redis.namespace must be 1 to 64 letters, digits, - _ or ., got a b");
        assertThatThrownBy(() -> build(null, "My Shop"))
                .hasMessage("sluice.limiter.redis.namespace (spring.application.name, as it is not set) must be 1 to 64"
                        + " letters, digits, - _ or ., got My Shop");
        assertThatThrownBy(() -> build("x".repeat(65), null)).hasMessageContaining("got " + "x".repeat(65));
    }
}

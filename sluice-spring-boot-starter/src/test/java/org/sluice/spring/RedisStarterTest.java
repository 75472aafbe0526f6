package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in the redis scope ({@code redis.yml}): the routes' buckets in a real
 * redis-server this test starts, servlet stack, the manual clock of {@link TestApp} sent
 * as the charges' time; the same answers, bandwidths and meters as in memory.
 */
@SpringBootTest(classes = TestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.config.name=redis")
@DirtiesContext
class RedisStarterTest extends InMemoryContract {

    private static final RedisServer REDIS = RedisServer.start();

    @Autowired
    SluiceRoutes routes;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("sluice.limiter.redis.uri", REDIS::uri);
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @Test
    void everyRouteIsAFleetLimiterWhoseKeysReachRedisHashed() throws Exception {
        assertThat(routes.routes()).allMatch(SluiceRoutes.Route::blocking);
        assertThat(get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(REDIS.call("KEYS", "sluice:{l:api:*")).asString().doesNotContain("addr").contains("sluice:{l:api:");
    }
}

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
 * The starter in the redis scope in a WebFlux application: the limiter's round trip runs
 * off the event loop, with the same answers as every other scope and stack.
 */
@SpringBootTest(classes = TestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.name=redis", "spring.main.web-application-type=reactive"})
@DirtiesContext
class RedisWebFluxStarterTest extends InMemoryContract {

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
    void theWebFilterChargesTheRouteInRedis() throws Exception {
        assertThat(routes.routes()).allMatch(SluiceRoutes.Route::blocking);
        assertThat(get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(REDIS.call("KEYS", "sluice:{l:api:*")).asString().contains("sluice:{l:api:");
    }
}

package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;

/**
 * What the starter answers on every stack and scope, over real HTTP to the application on
 * its random port, on the manual clock of {@link TestApp}. Each test uses a route of its
 * own, so the tests of one context never share a bucket; counts of served requests are
 * taken as differences, since contexts share the controller's counters.
 */
abstract class StarterContract {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Value("${local.server.port}")
    int port;

    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    @Test
    void admitsTheBurstThenAnswers429WithRetryAfterAndRateLimitFields() throws Exception {
        int before = TestApp.served("api");

        HttpResponse<String> first = get("/api/hello");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("hello");
        assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"api\";q=3;w=3");
        assertThat(header(first, "RateLimit")).isEqualTo("\"api\";r=2;t=1");
        assertThat(header(first, "Retry-After")).isNull();
        assertThat(get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(get("/api/hello").statusCode()).isEqualTo(200);

        HttpResponse<String> refused = get("/api/hello");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEmpty();
        assertThat(header(refused, "Retry-After")).isEqualTo("1");
        assertThat(header(refused, "RateLimit-Policy")).isEqualTo("\"api\";q=3;w=3");
        assertThat(header(refused, "RateLimit")).isEqualTo("\"api\";r=0;t=3");
        assertThat(TestApp.served("api") - before).isEqualTo(3);

        TestApp.NOW.addAndGet(1_000_000_000L);
        assertThat(get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(get("/api/hello").statusCode()).isEqualTo(429);
        assertThat(TestApp.served("api") - before).isEqualTo(4);
    }

    @Test
    void aHeaderKeyGivesEachCallerItsOwnBucketAndRequestsWithoutItCountByAddress() throws Exception {
        int before = TestApp.served("tenant");

        for (String tenant : new String[] {"alpha", "beta"}) {
            assertThat(get("/tenant/hello", "X-Api-Key", tenant).statusCode()).isEqualTo(200);
            assertThat(get("/tenant/hello", "X-Api-Key", tenant).statusCode()).isEqualTo(200);
            assertThat(get("/tenant/hello", "X-Api-Key", tenant).statusCode()).isEqualTo(429);
        }
        assertThat(get("/tenant/hello").statusCode()).isEqualTo(200);
        assertThat(get("/tenant/hello").statusCode()).isEqualTo(200);
        assertThat(get("/tenant/hello").statusCode()).isEqualTo(429);
        assertThat(TestApp.served("tenant") - before).isEqualTo(6);
    }

    @Test
    void aPrincipalKeyGivesEachUserItsOwnBucketAndAnonymousRequestsCountByAddress() throws Exception {
        int before = TestApp.served("user");

        assertThat(get("/user/hello", "X-Test-User", "ann").statusCode()).isEqualTo(200);
        assertThat(get("/user/hello", "X-Test-User", "ann").statusCode()).isEqualTo(429);
        assertThat(get("/user/hello", "X-Test-User", "bob").statusCode()).isEqualTo(200);
        assertThat(get("/user/hello").statusCode()).isEqualTo(200);
        assertThat(get("/user/hello").statusCode()).isEqualTo(429);
        assertThat(TestApp.served("user") - before).isEqualTo(3);
    }

    @Test
    void behindATrustedProxyTheForwardedClientIsTheKey() throws Exception {
        int before = TestApp.served("forwarded");

        assertThat(get("/forwarded/hello", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(200);
        assertThat(get("/forwarded/hello", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(429);
        // an entry the client prepends does not choose its key: the rightmost untrusted one does
        assertThat(get("/forwarded/hello", "X-Forwarded-For", "198.51.100.1, 203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(get("/forwarded/hello", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
        assertThat(TestApp.served("forwarded") - before).isEqualTo(2);
    }

    @Test
    void aPathNoRouteMatchesIsNotCounted() throws Exception {
        int before = TestApp.served("open");

        for (int i = 0; i < 10; i++) {
            HttpResponse<String> response = get("/open/hello");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(header(response, "RateLimit")).isNull();
        }
        assertThat(TestApp.served("open") - before).isEqualTo(10);
    }
}

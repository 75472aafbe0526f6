package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** What the memory and shared-memory scopes add to {@link StarterContract}: several bandwidths per route, and meters. */
abstract class InMemoryContract extends StarterContract {

    @Autowired
    MeterRegistry registry;

    private double calls(String route, String outcome) {
        return registry.get("sluice.limiter.calls").tag("limiter", route).tag("outcome", outcome).counter().count();
    }

    @Test
    void everyBandwidthMustAdmitAndThePolicyListsEach() throws Exception {
        int before = TestApp.served("multi");

        HttpResponse<String> first = get("/multi/hello", "X-Api-Key", "gamma");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"multi\";q=2;w=2, \"multi-2\";q=3;w=18");
        assertThat(get("/multi/hello", "X-Api-Key", "gamma").statusCode()).isEqualTo(200);
        assertThat(get("/multi/hello", "X-Api-Key", "gamma").statusCode()).isEqualTo(429);   // the per-second burst

        TestApp.NOW.addAndGet(1_000_000_000L);
        assertThat(get("/multi/hello", "X-Api-Key", "gamma").statusCode()).isEqualTo(200);
        TestApp.NOW.addAndGet(1_000_000_000L);
        HttpResponse<String> refused = get("/multi/hello", "X-Api-Key", "gamma");   // the per-minute burst
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(header(refused, "Retry-After")).isEqualTo("4");
        assertThat(TestApp.served("multi") - before).isEqualTo(3);
        assertThat(calls("multi", "admitted")).isEqualTo(3.0);
        assertThat(calls("multi", "refused")).isEqualTo(2.0);
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code tenant_path} routing the sender names the tenant, so a flood can invent
 * tenant ids. The limiter holds one row per recently charged tenant, and the sweeper
 * removes every row whose bucket has refilled: rows stay bounded by what arrived within
 * one refill time, and go to zero once the flood stops. Time is a manual clock.
 */
class BoundedMemoryTest {

    @TempDir
    Path dir;

    @Test
    void aFloodOfInventedTenantIdsLeavesTheLimiterRowsBoundedAndSwept() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", routing: tenant_path}
                rate_limits:
                  default: {rate: 10, burst: 10}
                sources:
                  shared: {verify: {scheme: none}}
                """)) {
            int tenants = 2_000;
            try (Http http = Http.connect(edge.address)) {
                for (int i = 0; i < tenants; i++) {
                    Http.Response r = http.request("POST", "/hooks/invented-" + i + "/shared", Map.of(),
                            "{}".getBytes(StandardCharsets.UTF_8));
                    assertThat(r.status()).isEqualTo(202);
                }
            }
            assertThat(edge.server.limiterRows()).isEqualTo(tenants); // one hook-count row each, no byte rows

            // nothing refills while the clock stands still: a full sweep cycle removes nothing
            for (int tick = 0; tick < 16; tick++) {
                edge.server.sweepOnce();
            }
            assertThat(edge.server.limiterRows()).isEqualTo(tenants);

            // one emission interval later every bucket is full again, i.e. identical to no row
            edge.clock.advance(Duration.ofMillis(100));
            for (int tick = 0; tick < 16; tick++) {
                edge.server.sweepOnce();
            }
            assertThat(edge.server.limiterRows()).isZero();
            assertThat(MetricsTest.scrape(edge)).contains("sluice_limiter_swept_total " + tenants + ".0")
                    .contains("sluice_limiter_rows 0.0");
        }
    }
}

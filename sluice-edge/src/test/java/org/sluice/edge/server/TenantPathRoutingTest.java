package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code routing: tenant_path}: the URL names the tenant; owned sources answer their owner only. */
class TenantPathRoutingTest {

    @TempDir
    Path dir;

    @Test
    void ownedSourcesAnswerTheirOwnerAndSharedSourcesAnyTenant() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", routing: tenant_path}
                rate_limits:
                  default: {rate: 100, burst: 100}
                sources:
                  owned:  {tenant: acme, verify: {scheme: none}}
                  shared: {verify: {scheme: none}}
                """)) {
            Http.Response own = edge.post("/hooks/acme/owned", Map.of(), "{}");
            assertThat(own.status()).isEqualTo(202);
            assertThat(edge.backends().store().get(json(own).get("id").asText()).orElseThrow().tenant()).isEqualTo("acme");

            Http.Response other = edge.post("/hooks/beta/owned", Map.of(), "{}");
            assertThat(other.status()).isEqualTo(404);
            assertThat(json(other).toString()).isEqualTo("{\"error\":\"unknown_source\"}");

            Http.Response shared = edge.post("/hooks/beta/shared", Map.of(), "{}");
            assertThat(shared.status()).isEqualTo(202);
            assertThat(edge.backends().store().get(json(shared).get("id").asText()).orElseThrow().tenant()).isEqualTo("beta");
            assertThat(shared.header("RateLimit-Policy")).as("the default limit applies").isEqualTo("\"tenant\";q=100;w=1");

            for (String path : new String[] {"/hooks/owned", "/hooks/acme/owned/x", "/hooks/ac%20me/owned", "/hooks//owned",
                "/hooks/" + "t".repeat(129) + "/shared"}) {
                Http.Response r = edge.post(path, Map.of(), "{}");
                assertThat(r.status()).as(path).isEqualTo(404);
                assertThat(json(r).get("error").asText()).as(path).isEqualTo("not_found");
            }
        }
    }
}

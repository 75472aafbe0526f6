package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.server.IngestContractTest.json;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One tenant-id rule on both listeners: a tenant the ingest URL routes, charges and stores
 * is one whose limit the admin API reads, sets and resets; one it does not route is one
 * the admin API refuses.
 */
class TenantIdRuleTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String LONGEST = "t".repeat(63) + ".";

    @TempDir
    Path dir;

    @Test
    void aDottedTenantRoutedOnIngestHasItsLimitReadSetAndResetThroughTheAdminApi() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", routing: tenant_path}
                rate_limits:
                  default: {rate: 100, burst: 100}
                  tenants:
                    acme.eu: {rate: 3, burst: 4}
                sources:
                  owned:  {tenant: acme.eu, verify: {scheme: none}}
                  shared: {verify: {scheme: none}}
                """)) {
            String token = Files.readString(dir.resolve("admin.token")).strip();
            for (String tenant : new String[] {"acme.eu", LONGEST}) {
                String source = tenant.equals("acme.eu") ? "owned" : "shared";
                Http.Response hook = edge.post("/hooks/" + tenant + "/" + source, Map.of(), "{}");
                assertThat(hook.status()).as(tenant).isEqualTo(202);
                assertThat(edge.backends().store().get(json(hook).get("id").asText()).orElseThrow().tenant())
                        .isEqualTo(tenant);

                String path = "/v1/tenants/" + tenant + "/rate-limit";
                assertThat(admin(edge, token, "GET", path, null).statusCode()).as(tenant).isEqualTo(200);
                HttpResponse<String> set = admin(edge, token, "PUT", path, "{\"rate\": 7, \"burst\": 9}");
                assertThat(set.statusCode()).as(tenant).isEqualTo(200);
                assertThat(set.body()).contains("\"rate\":7").contains("\"burst\":9");
                assertThat(admin(edge, token, "DELETE", path, null).statusCode()).as(tenant).isEqualTo(204);
            }
            assertThat(admin(edge, token, "GET", "/v1/tenants/acme.eu/rate-limit", null).body())
                    .as("back to the configured limit").contains("\"rate\":3").contains("\"burst\":4");

            for (String tenant : new String[] {LONGEST + "x", "..", ".acme", "ac%2Eme"}) {
                Http.Response hook = edge.post("/hooks/" + tenant + "/shared", Map.of(), "{}");
                assertThat(hook.status()).as(tenant).isEqualTo(404);
                assertThat(json(hook).get("error").asText()).as(tenant).isEqualTo("not_found");
                if (!tenant.startsWith(".")) { // a client removes dot segments before they reach the server
                    HttpResponse<String> read = admin(edge, token, "GET", "/v1/tenants/" + tenant + "/rate-limit", null);
                    assertThat(read.statusCode()).as(tenant).isEqualTo(400);
                    assertThat(read.body()).isEqualTo("{\"error\":\"invalid_tenant\"}");
                }
            }
        }
    }

    private static HttpResponse<String> admin(TestEdge edge, String token, String method, String path, String body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + token).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46, point 8: {@code /metrics} answered any {@code Host}, so a page on another site
 * that rebinds its own name to 127.0.0.1 could read it from a browser. The admin listener
 * now answers only the {@code Host} names in {@code admin.allowed_hosts}, IP literals,
 * {@code localhost} and its own listen host; any other gets
 * {@code 421 {"error":"host_not_allowed"}} and a closed connection, on every route.
 */
class AdminHostCheckTest {

    @TempDir
    Path dir;

    private TestEdge start(String admin) {
        return TestEdge.startWhole(dir, """
                node: {id: test, data_dir: "${DATA}"}
                admin: %s
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """.formatted(admin));
    }

    private static InetSocketAddress admin(TestEdge edge) {
        return new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
    }

    private static Http.Response get(TestEdge edge, String path, String host) {
        try (Http http = Http.connect(admin(edge))) {
            http.write("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
            Http.Response response = http.read();
            if (response.status() == 421) {
                assertThat(http.endOfStream()).as("closed after the 421").isTrue();
            }
            return response;
        }
    }

    @Test
    void aRebindingPagesHostIsRefusedOnMetricsTheDocsAndTheConsole() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\"}")) {
            for (String path : new String[] {"/metrics", "/docs", "/console/", "/v1/tenants/acme/rate-limit"}) {
                Http.Response refused = get(edge, path, "attacker.example:" + admin(edge).getPort());
                assertThat(refused.status()).as(path).isEqualTo(421);
                assertThat(refused.body()).as(path).isEqualTo("{\"error\":\"host_not_allowed\"}");
                assertThat(refused.body()).doesNotContain("sluice_");
            }
        }
    }

    @Test
    void addressesLocalhostAndTheListenHostAreAnsweredWithOrWithoutAPort() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\"}")) {
            int port = admin(edge).getPort();
            for (String host : new String[] {"127.0.0.1:" + port, "127.0.0.1", "localhost", "LocalHost.:" + port,
                    "[::1]:" + port, "10.1.2.3"}) {
                Http.Response answered = get(edge, "/metrics", host);
                assertThat(answered.status()).as(host).isEqualTo(200);
                assertThat(answered.body()).as(host).contains("sluice_");
            }
        }
    }

    @Test
    void aMalformedHostIsRefused() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\"}")) {
            for (String host : new String[] {"localhost:80x", "::1", "[not-v6]:1", "localhost.evil.example"}) {
                assertThat(get(edge, "/metrics", host).status()).as(host).isEqualTo(421);
            }
        }
    }

    @Test
    void namesInAllowedHostsAreAnsweredAndAStarAnswersAny() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", allowed_hosts: [\"Sluice-1.internal\"]}")) {
            assertThat(get(edge, "/metrics", "sluice-1.internal:9090").status()).isEqualTo(200);
            assertThat(get(edge, "/metrics", "sluice-2.internal").status()).isEqualTo(421);
        }
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", allowed_hosts: [\"*\"]}")) {
            assertThat(get(edge, "/metrics", "anything.example").status()).isEqualTo(200);
        }
    }
}

package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Boot failures that belong to the server rather than the config loader. */
class BootRefusalTest {

    @TempDir
    Path dir;

    @Test
    void theFleetScopeBootsWithItsStoreDownAndAnswersNodeLocal() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort(); // nothing listens here once the probe is closed
        }
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  scope: fleet
                  tenants: {acme: {rate: 1, burst: 2}}
                dedupe: {scope: fleet}
                fleet: {redis: "redis://127.0.0.1:%d", timeout_ms: 50}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """.formatted(closedPort))) {
            // no store: the node-local limit answers (one node known, so the whole burst)
            assertThat(edge.post("/hooks/open", java.util.Map.of(), "{}").status()).isEqualTo(202);
            assertThat(edge.post("/hooks/open", java.util.Map.of(), "{}").status()).isEqualTo(202);
            assertThat(edge.post("/hooks/open", java.util.Map.of(), "{}").status()).isEqualTo(429);
            assertThat(edge.backends().fleet().client().fallbackTotal(org.sluice.fleet.FleetKind.RATE_LIMIT))
                    .isEqualTo(3);
        }
    }

    @Test
    void aPortInUseFailsTheBootAndReleasesTheStore() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> TestEdge.start(dir, """
                    http: {listen: "127.0.0.1:%d"}
                    """.formatted(taken.getLocalPort()))).isNotNull();
        }
        // the failed boot closed the store: a second server opens the same data dir
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                """)) {
            assertThat(Http.get(edge.address, "/readyz").status()).isEqualTo(200);
        }
    }
}

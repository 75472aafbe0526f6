package org.sluice.edge.http;

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
    void theFleetScopeIsRefusedUntilItsModuleExists() { // host scope is served (HostScopeTest)
        for (String scope : new String[] {"fleet"}) {
            assertThatThrownBy(() -> TestEdge.start(dir.resolve(scope), """
                    http: {listen: "127.0.0.1:0"}
                    rate_limits: {scope: %s}
                    """.formatted(scope)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rate_limits.scope " + scope + " is not available");
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

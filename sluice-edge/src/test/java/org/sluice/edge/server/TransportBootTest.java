package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.netio.IoTransport;
import org.sluice.testkit.HookReceiver;

/**
 * {@code http.transport} named outright: the node runs every socket on it (ingest, admin, and
 * the delivery client on the lent ingest loops). A transport that cannot run on this machine
 * is skipped with the reason ({@code TransportChoiceTest} checks that naming it fails the boot).
 */
class TransportBootTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(IoTransport.class)
    void aNamedTransportServesIngestAdminAndDelivery(IoTransport transport) throws Exception {
        assumeTrue(transport.unavailability().isEmpty(),
                () -> transport.configName() + " cannot run here: " + transport.unavailability().orElseThrow());
        try (HookReceiver receiver = HookReceiver.start()) {
            var config = ConfigLoader.parse("""
                    node: {id: test, data_dir: "${DATA}"}
                    admin: {listen: "127.0.0.1:0"}
                    http: {listen: "127.0.0.1:0", transport: %s}
                    destinations:
                      app: {url: "%s"}
                    sources:
                      a: {verify: {scheme: none}, deliver_to: [app]}
                    """.formatted(transport.configName(), receiver.uri("/in")), Map.of("DATA", dir.toString()), "test");
            try (EdgeServer server = EdgeServer.builder(config).start()) {
                assertThat(server.transport().transport()).isEqualTo(transport);
                assertThat(server.transport()).hasToString(transport.configName() + " (http.transport: "
                        + transport.configName() + ")");
                var ingest = new java.net.InetSocketAddress("127.0.0.1", server.ingestAddress().getPort());
                assertThat(Http.post(ingest, "/hooks/a", Map.of(), "{\"x\":1}".getBytes(StandardCharsets.UTF_8)).status())
                        .isEqualTo(202);
                var admin = new java.net.InetSocketAddress("127.0.0.1", server.adminAddress().getPort());
                assertThat(Http.get(admin, "/metrics").status()).isEqualTo(200);
                assertThat(receiver.awaitRequests(1, Duration.ofSeconds(30)).get(0).bodyText()).isEqualTo("{\"x\":1}");
            }
        }
    }
}

package org.sluice.edge.load;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.netio.TestTransport;
import org.sluice.edge.server.EdgeServer;
import org.sluice.testkit.ManualClock;

/**
 * A real edge on a loopback port for the load generator's tests. Its limiters run on a
 * manual clock that never moves, so a tenant's burst is all it ever gets: counts are exact
 * however slowly the machine runs.
 */
final class LoadEdge implements AutoCloseable {

    final EdgeServer server;

    LoadEdge(Path dir, String yaml) {
        String base = """
                node: {id: load-test, data_dir: "${DATA}"}
                admin: {listen: "127.0.0.1:0"}
                """;
        this.server = EdgeServer.builder(
                        TestTransport.apply(ConfigLoader.parse(base + yaml, Map.of("DATA", dir.toString()), "test config")))
                .clock(new ManualClock(1_000_000_000_000L)).start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.ingestAddress().getPort() + "/hooks");
    }

    /** Options for a short, modest run: 40 requests a second for 2 s on 4 connections. */
    LoadOptions options(String source, String scheme, String secret) {
        return new LoadOptions(url(), source, scheme, secret, 40, 2_000_000_000L, 4, 256, 0, 0, 0, 7);
    }

    @Override
    public void close() {
        server.close();
    }
}

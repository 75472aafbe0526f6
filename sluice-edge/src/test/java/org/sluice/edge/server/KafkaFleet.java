package org.sluice.edge.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the fleet tests of {@code store.kind: kafka} share: a node's configuration, a post
 * and its id, a series read from a {@code /metrics} scrape.
 */
final class KafkaFleet {

    static final ObjectMapper JSON = new ObjectMapper();

    private KafkaFleet() {
    }

    /**
     * A node's YAML: {@code sources} sources {@code s0..} of tenant {@code t}, each delivering
     * to {@code app} ({@code destination}: the destination's flow mapping), the log on
     * {@code bootstrap} under {@code prefix} with {@code partitions} partitions, replication
     * factor {@code replicas}.
     */
    static String yaml(String node, Path dataDir, int sources, String destination, String bootstrap, String prefix,
                       int partitions, int replicas) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < sources; i++) {
            s.append("  s").append(i).append(": {tenant: t, verify: {scheme: none}, deliver_to: [app]}\n");
        }
        return """
                node: {id: %s, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "%s"}
                http: {listen: "127.0.0.1:0"}
                sources:
                %sdestinations:
                  app: %s
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: %s, partitions: %d, replication_factor: %d, timeout_ms: 5000}
                """.formatted(node, dataDir, NatsDeliveryTest.TOKEN, s, destination,
                bootstrap.replace(",", "\", \""), prefix, partitions, replicas);
    }

    /** Posts hook {@code n} to source {@code s<n % sources>}; the answer. */
    static Http.Response post(InetSocketAddress ingest, int sources, int n) {
        return Http.post(ingest, "/hooks/s" + (n % sources), Map.of("Content-Type", "application/json"),
                ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
    }

    /** The id of a 202's body. */
    static String id(Http.Response accepted) {
        try {
            return JSON.readTree(accepted.body()).get("id").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value of the series named exactly {@code series} (name and labels) on {@code admin}'s /metrics; NaN when absent. */
    static double gauge(URI admin, String series) {
        String scrape = Http.get(new InetSocketAddress(InetAddress.getLoopbackAddress(), admin.getPort()), "/metrics").body();
        for (String line : scrape.lines().toList()) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).strip());
            }
        }
        return Double.NaN;
    }

    /** Partitions of {@code <prefix>.hooks} the node behind {@code admin} owns, from its metrics. */
    static int owned(URI admin, String prefix) {
        double v = gauge(admin, "sluice_log_partitions_owned{topic=\"" + prefix + ".hooks\"}");
        return Double.isNaN(v) ? -1 : (int) v;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

package org.sluice.edge.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * {@code node:} this process's identity and where it keeps its data.
 *
 * @param id      {@code node.id}, default {@code edge-1}: names this node in logs, the host
 *                arena's default path and the fleet's heartbeats; {@code [A-Za-z0-9_.-]{1,64}}
 * @param dataDir {@code node.data_dir}, default {@code ./sluice-data}: the RocksDB store and
 *                the generated admin token live here (created at boot when missing)
 */
public record NodeConfig(String id, Path dataDir) {

    public static final String DEFAULT_ID = "edge-1";
    public static final Path DEFAULT_DATA_DIR = Path.of("./sluice-data");

    public NodeConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(dataDir, "dataDir");
    }

    public static NodeConfig defaults() {
        return new NodeConfig(DEFAULT_ID, DEFAULT_DATA_DIR);
    }
}

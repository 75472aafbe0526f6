package org.sluice.edge.config;

/** {@code fleet.fallback}: which limit a node applies on its own while the fleet store is unreachable. */
public enum FleetFallback {
    /** The tenant's limit divided by the last known number of live nodes. */
    SHARE("share"),
    /** The tenant's full limit on every node. */
    WHOLE("whole");

    private final String configName;

    FleetFallback(String configName) {
        this.configName = configName;
    }

    /** The spelling used in the YAML file. */
    public String configName() {
        return configName;
    }
}

package org.sluice.edge.config;

import java.util.Locale;

/** {@code fleet.fallback}: which limit a node applies on its own while the fleet store is unreachable. */
public enum FleetFallback {
    /** The tenant's limit divided by the last known number of live nodes. */
    SHARE,
    /** The tenant's full limit on every node. */
    WHOLE;

    /** The spelling used in the YAML file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

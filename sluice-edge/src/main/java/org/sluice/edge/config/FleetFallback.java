package org.sluice.edge.config;

import org.sluice.edge.settings.ConfigWord;

/** {@code fleet.fallback}: which limit a node applies on its own while the fleet store is unreachable. */
public enum FleetFallback implements ConfigWord {
    /** The tenant's limit divided by the last known number of live nodes. */
    SHARE,
    /** The tenant's full limit on every node. */
    WHOLE;
}

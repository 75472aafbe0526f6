package org.sluice.edge.config;

import java.util.Locale;

/** {@code rate_limits.scope}: where the per-IP, node and tenant buckets live. */
public enum LimitScope {
    /** In this process's heap. */
    NODE,
    /** In a shared-memory arena that every Sluice process on this host maps. */
    HOST,
    /** Tenant buckets in Redis, one limit across the fleet (per-IP, node and source stay per node). */
    FLEET;

    /** The spelling used in the YAML file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

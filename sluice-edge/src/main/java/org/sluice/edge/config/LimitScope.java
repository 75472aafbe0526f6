package org.sluice.edge.config;

/** {@code rate_limits.scope}: where the per-IP, node and tenant buckets live. */
public enum LimitScope {
    /** In this process's heap. */
    NODE("node"),
    /** In a shared-memory arena that every Sluice process on this host maps. */
    HOST("host"),
    /** Tenant buckets in Redis, one limit across the fleet (per-IP, node and source stay per node). */
    FLEET("fleet");

    private final String configName;

    LimitScope(String configName) {
        this.configName = configName;
    }

    /** The spelling used in the YAML file. */
    public String configName() {
        return configName;
    }
}

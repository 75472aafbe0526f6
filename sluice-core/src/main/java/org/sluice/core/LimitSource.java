package org.sluice.core;

/** Where a tenant's effective limit came from, in precedence order. */
public enum LimitSource {
    /** A runtime override (admin API), persisted through the {@link OverrideStore}. */
    OVERRIDE("override"),
    /** The config's {@code rate_limits.tenants} entry for the tenant. */
    CONFIG("config"),
    /** The config's {@code rate_limits.default}. */
    DEFAULT("default"),
    /** No limit anywhere: unlimited. */
    NONE("none");

    private final String wireName;

    LimitSource(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in JSON and logs: {@code override}, {@code config}, {@code default}, {@code none}. */
    public String wireName() {
        return wireName;
    }
}

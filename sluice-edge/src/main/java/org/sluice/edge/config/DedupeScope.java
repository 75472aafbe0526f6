package org.sluice.edge.config;

/** {@code dedupe.scope}: where a dedupe claim is made. */
public enum DedupeScope {
    /** This node's own store index. */
    NODE("node"),
    /** A claim in Redis shared by the fleet (the node's own index is still checked after it). */
    FLEET("fleet");

    private final String configName;

    DedupeScope(String configName) {
        this.configName = configName;
    }

    /** The spelling used in the YAML file. */
    public String configName() {
        return configName;
    }
}

package org.sluice.edge.config;

import java.util.Locale;

/** {@code dedupe.scope}: where a dedupe claim is made. */
public enum DedupeScope {
    /** This node's own store index. */
    NODE,
    /** A claim in Redis shared by the fleet (the node's own index is still checked after it). */
    FLEET;

    /** The spelling used in the YAML file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

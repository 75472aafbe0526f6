package org.sluice.edge.config;

import org.sluice.edge.settings.ConfigWord;

/** {@code dedupe.scope}: where a dedupe claim is made. */
public enum DedupeScope implements ConfigWord {
    /** This node's own store index. */
    NODE,
    /** A claim in Redis shared by the fleet (the node's own index is still checked after it). */
    FLEET;
}

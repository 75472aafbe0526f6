package org.sluice.edge.delivery;

import java.util.Locale;

/** {@code destinations.<name>.ordering}: whether a destination receives hooks in commit order. */
public enum Ordering {
    /** Hooks are sent as they come due; a failing hook holds back nothing else. */
    NONE,
    /**
     * A hook is not sent before every earlier hook of the same (tenant, source) is
     * delivered or dead at this destination.
     */
    FIFO;

    /** The word used in the config file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

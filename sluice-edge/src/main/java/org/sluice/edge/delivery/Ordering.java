package org.sluice.edge.delivery;

import org.sluice.edge.settings.ConfigWord;

/** {@code destinations.<name>.ordering}: whether a destination receives hooks in commit order. */
public enum Ordering implements ConfigWord {
    /** Hooks are sent as they come due; a failing hook holds back nothing else. */
    NONE,
    /**
     * A hook is not sent before every earlier hook of the same (tenant, source) is
     * delivered or dead at this destination.
     */
    FIFO;
}

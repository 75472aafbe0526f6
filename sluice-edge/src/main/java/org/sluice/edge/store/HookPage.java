package org.sluice.edge.store;

import java.util.List;

/**
 * One page of {@link HookStore#after(String, int)}.
 *
 * @param hooks hooks in commit order
 * @param next  the id to pass as {@code after} for the next page when more hooks were
 *              committed after this page at the time it was read; null when this page
 *              reached the end (a follower then continues from its last hook's id)
 */
public record HookPage(List<StoredHook> hooks, String next) {

    public HookPage {
        hooks = List.copyOf(hooks);
    }
}

package org.sluice.edge.server;

import java.util.ArrayList;
import java.util.List;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;

/** Reads every hook a store holds, in commit order. */
final class StoredHooks {

    private StoredHooks() {
    }

    static List<StoredHook> all(HookStore store) {
        List<StoredHook> all = new ArrayList<>();
        String after = null;
        while (true) {
            HookPage page = store.after(after, 500);
            all.addAll(page.hooks());
            if (page.hooks().isEmpty()) {
                return all;
            }
            after = page.hooks().get(page.hooks().size() - 1).id();
        }
    }
}

package org.sluice.edge.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link HookReader} over a list in commit order, used where the unit tests need hooks
 * without a store; the black-box tests read the real RocksDB store through the server.
 */
final class ListHookReader implements HookReader {

    private final List<Hook> hooks = new ArrayList<>();
    volatile boolean failing;

    synchronized void add(Hook hook) {
        hooks.add(hook);
    }

    @Override
    public synchronized Optional<Hook> get(String id) {
        check();
        return hooks.stream().filter(h -> h.id().equals(id)).findFirst();
    }

    @Override
    public synchronized Optional<Page> after(String afterId, int limit) {
        check();
        int from = 0;
        if (afterId != null) {
            int at = -1;
            for (int i = 0; i < hooks.size(); i++) {
                if (hooks.get(i).id().equals(afterId)) {
                    at = i;
                }
            }
            if (at < 0) {
                return Optional.empty();
            }
            from = at + 1;
        }
        int to = Math.min(hooks.size(), from + limit);
        List<Hook> page = new ArrayList<>(hooks.subList(from, to));
        String next = to < hooks.size() && !page.isEmpty() ? page.get(page.size() - 1).id() : null;
        return Optional.of(new Page(page, next));
    }

    private void check() {
        if (failing) {
            throw new StoreUnavailableException("injected read failure", null);
        }
    }
}

package org.sluice.edge.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.sluice.core.OverrideStoreException;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.StoredHook;

/** The node's store seen through the admin API's two ports, {@link HookReader} and {@link AuditTrail}. */
public final class StoreAdapters {

    private StoreAdapters() {
    }

    /** Reads hooks from {@code store}; store failures become {@link StoreUnavailableException}. */
    public static HookReader hooks(HookLog store) {
        Objects.requireNonNull(store, "store");
        return new HookReader() {
            @Override
            public Optional<Hook> get(String id) {
                try {
                    return store.get(id).map(StoreAdapters::hook);
                } catch (HookStoreException e) {
                    throw new StoreUnavailableException(e.getMessage(), e);
                }
            }

            @Override
            public Optional<Page> after(String afterId, int limit) {
                HookPage page;
                try {
                    page = store.after(afterId, limit);
                } catch (IllegalArgumentException unknownAfter) {
                    return Optional.empty();
                } catch (HookStoreException e) {
                    throw new StoreUnavailableException(e.getMessage(), e);
                }
                List<Hook> hooks = new ArrayList<>(page.hooks().size());
                for (StoredHook h : page.hooks()) {
                    hooks.add(hook(h));
                }
                return Optional.of(new Page(hooks, page.next()));
            }

            @Override
            public Optional<HookSummary.Page> newest(String afterId, int limit) {
                try {
                    return Optional.of(store.newest(afterId, limit));
                } catch (IllegalArgumentException unknownAfter) {
                    return Optional.empty();
                } catch (HookStoreException e) {
                    throw new StoreUnavailableException(e.getMessage(), e);
                }
            }
        };
    }

    /** The audit trail of {@code overrides}; the actor travels in its {@link ControlState#actingAs} scope. */
    public static AuditTrail audit(ControlState overrides) {
        Objects.requireNonNull(overrides, "overrides");
        return new AuditTrail() {
            @Override
            public <T> T as(String actor, Supplier<T> change) {
                try (ControlState.ActorScope scope = overrides.actingAs(actor)) {
                    return change.get();
                }
            }

            @Override
            public void record(String actor, String action, String tenant, java.util.Map<String, Object> before,
                               java.util.Map<String, Object> after) {
                try (ControlState.ActorScope scope = overrides.actingAs(actor)) {
                    overrides.record(action, tenant, before, after);
                } catch (OverrideStoreException | HookStoreException e) {
                    throw new StoreUnavailableException(e.getMessage(), e);
                }
            }

            @Override
            public List<AuditRecord> newest(int limit) {
                try {
                    return overrides.audit(limit);
                } catch (OverrideStoreException | HookStoreException e) {
                    throw new StoreUnavailableException(e.getMessage(), e);
                }
            }
        };
    }

    private static HookReader.Hook hook(StoredHook h) {
        return new HookReader.Hook(h.id(), h.tenant(), h.source(), h.receivedAtMillis(), h.headers(), h.body());
    }
}

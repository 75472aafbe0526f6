package org.sluice.core;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** An {@link OverrideStore} in this JVM's memory: nothing survives a restart. Thread-safe; never throws. */
public final class InMemoryOverrideStore implements OverrideStore {

    private final ConcurrentHashMap<String, Limit> overrides = new ConcurrentHashMap<>();

    public InMemoryOverrideStore() {
    }

    /** Starts with {@code initial} overrides (copied). */
    public InMemoryOverrideStore(Map<String, Limit> initial) {
        overrides.putAll(initial);
    }

    @Override
    public Map<String, Limit> load() {
        return Map.copyOf(overrides);
    }

    @Override
    public void put(String tenant, Limit limit) {
        overrides.put(Objects.requireNonNull(tenant, "tenant"), Objects.requireNonNull(limit, "limit"));
    }

    @Override
    public boolean delete(String tenant) {
        return overrides.remove(tenant) != null;
    }
}

package org.sluice.core;

import java.util.Map;

/**
 * Where runtime tenant overrides persist. The edge keeps them in its node-local store;
 * {@link InMemoryOverrideStore} serves tests and embedders who need no persistence.
 *
 * <p>Any method may throw {@link OverrideStoreException} when the store cannot be
 * reached or written; {@link TenantLimits} then changes nothing in memory and the
 * caller reports {@code store_unavailable}.
 */
public interface OverrideStore {

    /** Every override, keyed by tenant. Called once, when {@link TenantLimits} is built. */
    Map<String, Limit> load();

    /** Sets (or replaces) {@code tenant}'s override durably before returning. */
    void put(String tenant, Limit limit);

    /** Removes {@code tenant}'s override; false when there was none. */
    boolean delete(String tenant);
}

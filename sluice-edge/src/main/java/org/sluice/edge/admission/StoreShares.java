package org.sluice.edge.admission;

import java.util.function.ToLongFunction;

/**
 * Each tenant's share of the node's store ({@code rate_limits.*.max_stored_bytes}): a hook of
 * a tenant whose body bytes in the store are at or above its share is refused, scope
 * {@link RefusalScope#TENANT_STORAGE}, before anything is charged or committed, so that one
 * tenant cannot fill {@code store.max_bytes} for every other. The check reads two numbers
 * from memory (the share, and the store's count of the tenant's bytes), so hooks that are
 * admitted together may take a tenant past its share by what they hold: the bound is
 * reached, then refused, never exceeded by more than the hooks in flight.
 *
 * <p>Thread-safe when both functions are.
 */
public final class StoreShares {

    /**
     * The wait a refusal answers: 5 s, as {@code 503 store_full} does. Space comes back when
     * retention deletes the tenant's hooks (its pass runs every second, and frees space in
     * batches), which this node cannot foresee.
     */
    static final long WAIT_NANOS = 5_000_000_000L;

    /** No tenant has a share: nothing is refused. */
    public static final StoreShares NONE = new StoreShares(tenant -> 0L, tenant -> 0L);

    private final ToLongFunction<String> maxStoredBytes;
    private final ToLongFunction<String> storedBytes;

    /**
     * @param maxStoredBytes a tenant's share in body bytes, 0 when it has none
     * @param storedBytes    the body bytes a tenant has in the store now (the store's count)
     */
    public StoreShares(ToLongFunction<String> maxStoredBytes, ToLongFunction<String> storedBytes) {
        this.maxStoredBytes = maxStoredBytes;
        this.storedBytes = storedBytes;
    }

    /** The refusal of a hook of {@code tenant}, or null when it is under its share or has none. */
    Refusal check(String tenant) {
        long share = maxStoredBytes.applyAsLong(tenant);
        if (share <= 0 || storedBytes.applyAsLong(tenant) < share) {
            return null;
        }
        return new Refusal(RefusalScope.TENANT_STORAGE, WAIT_NANOS);
    }
}

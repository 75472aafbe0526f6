package org.sluice.edge.config;

/**
 * {@code store:} bounds on the local store.
 *
 * @param maxBytes {@code store.max_bytes}: 0 for no bound; else, once the store's size
 *                 reaches it, new hooks are answered {@code 503 store_full} and
 *                 {@code /readyz} is 503, while delivery and retention go on
 */
public record StoreConfig(long maxBytes) {

    public static StoreConfig defaults() {
        return new StoreConfig(0);
    }

    /** True when a bound is set. */
    public boolean bounded() {
        return maxBytes > 0;
    }
}

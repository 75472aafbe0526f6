package org.sluice.edge.store;

/**
 * The node's durable store, whole: the {@link HookLog}, the {@link DeliveryLedger} of the
 * hooks in it, and its {@link StoreHealth}, sharing one lifecycle. What the server assembles
 * and hands to the intake, the dispatcher and the admin API; each of them may take only the
 * part it needs. The RocksDB implementation is {@code rocks.RocksHookStore} (opened with
 * its {@code open}); control state (overrides, their audit, pauses) is
 * {@link ControlState}.
 *
 * <p>Implementations are thread-safe.
 */
public interface HookStore extends HookLog, StoreHealth, AutoCloseable {

    /** The delivery state of the hooks in this store. */
    DeliveryLedger deliveries();

    /**
     * Closes the store after every running read and write has finished. Every commit was
     * durable already, so nothing acknowledged depends on this. Idempotent.
     */
    @Override
    void close();
}

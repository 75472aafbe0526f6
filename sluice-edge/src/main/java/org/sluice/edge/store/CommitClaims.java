package org.sluice.edge.store;

import java.util.List;

/**
 * Lets a dispatcher start a new hook's first attempts as soon as its commit is durable,
 * without reading it back: the commit writes such a delivery already claimed (due again at
 * the claim's expiry, as a claim by the dispatcher would), and hands the claimed rows over
 * once its write is over. A delivery that is not claimed is written due at once, and the
 * dispatcher's scan finds it as before.
 *
 * <p>Crash safety is that of any claim: the row is durable in the hook's own fsynced
 * write, so an attempt lost with the process comes due again when the claim expires.
 */
public interface CommitClaims {

    /**
     * A delivery claimed at its commit, with its hook, as written, the hook's commit
     * sequence number (what {@link DeliveryLedger#dueBy(String, long, int,
     * java.util.function.LongPredicate)}'s {@code held} test names rows by), and
     * {@link DeliveryLedger#othersWrites()} before the write (for
     * {@link DeliveryLedger.Transition#seenAt}).
     */
    record Claimed(StoredHook hook, DeliveryRow row, long seq, long writes) {
    }

    /**
     * Called under the store's commit lock for each destination of a hook being committed:
     * returns when the claim expires (epoch ms) if the first attempt is to start right
     * after the commit (the caller holds whatever that takes, such as a slot, until
     * {@link #committed}), else -1. Must be quick and must not block or touch the store.
     */
    long claim(String destination, long nowMillis);

    /**
     * Called once for every delivery {@link #claim} took, after the commit's write:
     * {@code written} true when it is durable (start the attempts), false when the write
     * failed (give back what the claims held; nothing was stored).
     */
    void committed(List<Claimed> claimed, boolean written);
}

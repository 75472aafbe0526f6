package org.sluice.edge.store;

import java.util.List;

/**
 * How a commit tells the dispatcher about the deliveries it writes: the one route by which
 * new deliveries reach it. A dispatcher may start a new hook's first attempts as soon as
 * its commit is durable, without reading it back: the commit writes such a delivery
 * already claimed (due again at the claim's expiry, as a claim by the dispatcher would),
 * and hands the claimed rows over once its write is over. A delivery that is not claimed
 * is written due at once, and the dispatcher's scan finds it; the hand-over says how many
 * there are, so that the dispatcher looks now rather than at its next poll.
 *
 * <p>Crash safety is that of any claim: the row is durable in the hook's own fsynced
 * write, so an attempt lost with the process comes due again when the claim expires. A
 * hand-over that is lost (the call failed) only delays the unclaimed rows until the
 * dispatcher's next poll.
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
     * Called on the committing thread, under the store's commit lock, for each destination
     * of a hook being committed: returns when the claim expires (epoch ms) if the first
     * attempt is to start right after the commit (the caller holds whatever that takes,
     * such as a slot, until {@link #committed}), else -1. Must be quick and must not block
     * or touch the store.
     */
    long claim(String destination, long nowMillis);

    /**
     * Called once per commit that wrote pending deliveries, or that claimed some and then
     * failed: {@code claimed}, every delivery {@link #claim} took for it, and
     * {@code unclaimed}, how many others it wrote due at once. {@code written} true when
     * the write is durable (start the claimed attempts; look for the others), false when
     * it failed (give back what the claims held; nothing was stored). On the committing
     * thread, after the write's fsync and with the rows already counted in the ledger, or
     * under the commit lock when the commit failed before its write. Must not block.
     */
    void committed(List<Claimed> claimed, int unclaimed, boolean written);
}

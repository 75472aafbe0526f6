package org.sluice.edge.store.kafka;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.StoredHook;

/**
 * Carries forward the hooks a {@link LogFollower} holds unfinished on the hooks topic (a
 * paused destination, a destination down, retries nearer than the move threshold) before
 * the topic's retention ({@code retention.hooks_seconds}) can delete their records: on each
 * commit pass, every held hook of an owned hooks partition whose id is older than
 * {@link FollowerSettings#carryAfter()} (the server sets half of {@code hooks_seconds}) and
 * which still has a pending delivery is written to {@code <prefix>.retry} as a
 * {@link RetryRecords} record (its pending destinations with their attempts and due times
 * unchanged), stamped with the time of the carry rather than the hook's, so that the retry
 * topic's retention (the same {@code hooks_seconds}) counts from the carry. The move is then
 * {@link RetryMoves}'s: the hook is forgotten here once the log acknowledged it, the hooks
 * partition commits past it, and the owner of its retry partition takes it back.
 *
 * <p>A repeat is harmless: a hook being moved is not carried again, and a second copy on the
 * retry topic (a move whose acknowledgement was lost in a rebalance) is taken as the same
 * hook id by the working set. Hooks of {@code fifo} destinations are not moved so (it would
 * reorder them), nor are the retry topic's own records: {@link OrderedCarry} carries both,
 * keeping their order (docs/fleet-log.md, "Retention").
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class HookCarry {

    private static final Logger LOG = LoggerFactory.getLogger(HookCarry.class);

    private final FollowerContext context;
    private final RetryMoves moves;
    /** Read by other threads. */
    private final AtomicLong carriedCount = new AtomicLong();

    /** Carries through {@code moves}; does nothing when they are off or {@link FollowerSettings#carryAfter()} is zero. */
    HookCarry(FollowerContext context, RetryMoves moves) {
        this.context = context;
        this.moves = moves;
    }

    /** Hooks whose carry was started since start (a move that failed and was started again counts twice). */
    long carried() {
        return carriedCount.get();
    }

    /** Starts carrying every held hook of the hooks partitions of {@code progress} older than the carry age. */
    void start(Map<TopicPartition, PartitionProgress> progress) {
        long after = context.settings().carryAfter().toMillis();
        if (after == 0 || !moves.enabled()) {
            return;
        }
        long now = context.now();
        try {
            for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
                if (context.onHooksTopic(e.getKey())) {
                    carry(e.getValue(), now, now - after);
                }
            }
        } catch (RuntimeException e) { // a read or a send refused: the hooks stay, and a later pass tries again
            LOG.warn("carrying held hooks forward to {} failed: {}", context.settings().retryTopic(), e.toString());
        }
    }

    private void carry(PartitionProgress p, long now, long stampedBefore) {
        for (String id : p.heads(p.size())) {
            if (HookRecords.idMillis(UUID.fromString(id)) > stampedBefore || moves.inMotion(id)) {
                continue;
            }
            List<DeliveryRow> pending = context.pending(id);
            if (pending.isEmpty() || context.ordered(pending)) {
                continue;
            }
            Optional<StoredHook> hook = context.store().get(id);
            if (hook.isPresent()) {
                moves.move(id, RetryRecords.record(context.settings().retryTopic(), hook.get(), pending, now));
                carriedCount.incrementAndGet();
            }
        }
    }
}

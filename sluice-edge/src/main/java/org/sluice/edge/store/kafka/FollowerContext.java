package org.sluice.edge.store.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.WorkingSet;

/**
 * What every part of a {@link LogFollower} works with: the follower's settings, the working
 * set it follows the log into, the wall clock the working set's due times are read on (epoch
 * ms), and the destinations delivered in order ({@code fifo}). Built once by the follower and
 * handed to {@link RetryMoves}, {@link HookCarry}, {@link OrderedCarry}, {@link CarryCatchUp}
 * and {@link RecordIntake}, with the two reads of the working set they share.
 *
 * <p>Immutable; its methods run on the follower's thread.
 *
 * @param orderedDestinations copied: the destinations whose hooks are never moved out of their
 *                            key's order
 */
record FollowerContext(FollowerSettings settings, WorkingSet store, LongSupplier wallMillis,
                       Set<String> orderedDestinations) {

    FollowerContext {
        orderedDestinations = Set.copyOf(orderedDestinations);
    }

    /** The wall clock now, epoch ms. */
    long now() {
        return wallMillis.getAsLong();
    }

    /** True for a partition of the hooks topic. */
    boolean onHooksTopic(TopicPartition tp) {
        return tp.topic().equals(settings.hooksTopic());
    }

    /** True for a partition of the retry topic. */
    boolean onRetryTopic(TopicPartition tp) {
        return tp.topic().equals(settings.retryTopic());
    }

    /** The hook's pending deliveries, in the working set's order; empty when it is finished. */
    List<DeliveryRow> pending(String hookId) {
        List<DeliveryRow> out = new ArrayList<>(2);
        for (DeliveryRow r : store.deliveries().deliveries(hookId)) {
            if (r.state() == DeliveryState.PENDING) {
                out.add(r);
            }
        }
        return out;
    }

    /** True when one of {@code rows} is to a destination delivered in order. */
    boolean ordered(List<DeliveryRow> rows) {
        for (DeliveryRow r : rows) {
            if (orderedDestinations.contains(r.destination())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Puts copies of hooks read from the log into the working set in one write, with the
     * deliveries each carries ({@code carried}, by position), and gives a copy of a hook
     * already held the destinations it names that the held one lacks
     * ({@link LogReplay#completeCopies}).
     */
    void commitCopies(List<PendingHook> hooks, List<UUID> ids, List<Map<String, WorkingSet.Carried>> carried) {
        LogReplay.completeCopies(store, hooks, store.commitWithIds(hooks, ids, carried), wallMillis);
    }
}

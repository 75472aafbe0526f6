package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.WorkingSet;

/**
 * The catch-up of a retry partition a {@link LogFollower} is newly given, which puts the
 * hooks carried forward in order ({@link OrderedCarry}) into the working set in their keys'
 * order before any later hook of those keys (docs/fleet-log.md, "Retention").
 *
 * <p>A retry partition is caught up from its assignment until the follower has read it to the
 * end offset it had then, or holds its bound of records
 * ({@link FollowerSettings#maxTrackedPerPartition()}). Meanwhile:
 * <ul>
 *   <li>its records with a position ({@link RetryRecords#POSITION} at least 0: {@code fifo}
 *       hooks carried forward) are kept aside rather than put in the working set, and its
 *       offset is not committed (the follower asks {@link #catchingUp});</li>
 *   <li>the hooks partition of the same number, when the follower was given it in the same
 *       rebalance ({@link TopicSpreadAssignor} moves the two together), is paused.</li>
 * </ul>
 * At the end the records kept aside go into the working set in one write, by position (the
 * offset of each hook's record on the hooks topic, which is its key's acceptance order; of
 * several copies of one hook the newest comes first, so its attempts and due times are the
 * ones kept), and the hooks partition is resumed. The working set's commit order is the
 * dispatcher's {@code fifo} order, so each key's carried hooks come before its later ones,
 * whichever copies of them the retry partition holds and in whatever order.
 *
 * <p>Bound: what is kept aside is part of the records the partition holds, at most
 * {@link FollowerSettings#maxTrackedPerPartition()}. A carried copy further than that past the
 * retry partition's committed offset can reach the working set after a later hook of its key
 * (documented as a limit).
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class CarryCatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(CarryCatchUp.class);
    private static final Duration ASK = Duration.ofSeconds(2);

    /** A record kept aside. */
    record Aside(long position, long offset, PendingHook hook, UUID id, Map<String, WorkingSet.Carried> carried) {
    }

    private static final class State {
        /** The end offset at the assignment; -1 until known. */
        long target = -1;
        final List<Aside> aside = new ArrayList<>();
    }

    private final FollowerContext context;
    /** Retry partitions being caught up. */
    private final Map<TopicPartition, State> catching = new HashMap<>();
    /** Hooks partitions paused until their retry partition is caught up. */
    private final Set<TopicPartition> held = new HashSet<>();

    CarryCatchUp(FollowerContext context) {
        this.context = context;
    }

    /** Partitions newly given: each retry partition starts its catch-up, and the hooks partition of its number waits for it. */
    void assigned(Collection<TopicPartition> partitions, Consumer<?, ?> consumer) {
        for (TopicPartition tp : partitions) {
            if (context.onRetryTopic(tp)) {
                catching.put(tp, new State());
            }
        }
        List<TopicPartition> pause = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (context.onHooksTopic(tp) && catching.containsKey(sibling(tp))) {
                pause.add(tp);
            }
        }
        if (!pause.isEmpty()) {
            held.addAll(pause);
            consumer.pause(pause);
        }
    }

    /** True while {@code tp} is a retry partition being caught up, or a hooks partition waiting for one. */
    boolean catchingUp(TopicPartition tp) {
        return catching.containsKey(tp) || held.contains(tp);
    }

    /** True while {@code tp} is a hooks partition paused until its retry partition is caught up. */
    boolean holds(TopicPartition tp) {
        return held.contains(tp);
    }

    /** True when a record of {@code tp} with this position is to be kept aside ({@link #keepAside}). */
    boolean keepsAside(TopicPartition tp, long position) {
        return position >= 0 && catching.containsKey(tp);
    }

    /** Keeps these records of {@code tp} aside until its catch-up ends. */
    void keepAside(TopicPartition tp, List<Aside> records) {
        State s = catching.get(tp);
        if (s != null) {
            s.aside.addAll(records);
        }
    }

    /**
     * Ends the catch-ups that have read to their end offset or hold their bound: puts their
     * records kept aside in the working set and resumes their hooks partitions. Returns the
     * hooks put in the working set. A broker that does not answer, or a working set that
     * refuses the write, leaves the catch-up on for the next call.
     */
    int check(Consumer<?, ?> consumer, Map<TopicPartition, PartitionProgress> progress) {
        int taken = 0;
        for (Iterator<Map.Entry<TopicPartition, State>> it = catching.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, State> e = it.next();
            TopicPartition tp = e.getKey();
            State s = e.getValue();
            PartitionProgress p = progress.get(tp);
            try {
                if (p != null) {
                    if (s.target < 0) {
                        s.target = consumer.endOffsets(List.of(tp), ASK).getOrDefault(tp, 0L);
                    }
                    if (p.size() < context.settings().maxTrackedPerPartition() && consumer.position(tp, ASK) < s.target) {
                        continue;
                    }
                    taken += takeAside(s.aside);
                }
            } catch (WakeupException x) {
                throw x;
            } catch (RuntimeException x) {
                LOG.warn("catching up {} failed, tried again: {}", tp, x.toString());
                continue;
            }
            it.remove();
            if (held.remove(sibling(tp))) {
                consumer.resume(List.of(sibling(tp)));
            }
        }
        return taken;
    }

    /** Partitions that went: their catch-ups end with nothing written; a hooks partition left waiting is resumed. */
    void revoked(Collection<TopicPartition> partitions, Consumer<?, ?> consumer) {
        held.removeAll(partitions);
        for (TopicPartition tp : partitions) {
            if (catching.remove(tp) != null && held.remove(sibling(tp))) {
                consumer.resume(List.of(sibling(tp)));
            }
        }
    }

    /**
     * The working set was given up and {@code partitions} (all those owned) rewound: each is read
     * again as if newly given, so every catch-up starts over (what was kept aside will be read again).
     */
    void rewound(Collection<TopicPartition> partitions, Consumer<?, ?> consumer) {
        catching.clear();
        held.clear();
        assigned(partitions, consumer);
    }

    private int takeAside(List<Aside> aside) {
        if (aside.isEmpty()) {
            return 0;
        }
        List<Aside> sorted = new ArrayList<>(aside);
        sorted.sort(Comparator.comparingLong(Aside::position).thenComparing(Aside::offset, Comparator.reverseOrder()));
        List<PendingHook> hooks = new ArrayList<>(sorted.size());
        List<UUID> ids = new ArrayList<>(sorted.size());
        List<Map<String, WorkingSet.Carried>> carried = new ArrayList<>(sorted.size());
        Set<UUID> seen = new HashSet<>();
        for (Aside a : sorted) {
            if (!seen.add(a.id())) {
                continue; // an older copy: it may name a destination delivered since, which must not be sent again
            }
            hooks.add(a.hook());
            ids.add(a.id());
            carried.add(a.carried());
        }
        context.commitCopies(hooks, ids, carried);
        return hooks.size();
    }

    /** The hooks partition of a retry partition's number, or the retry partition of a hooks one's. */
    private TopicPartition sibling(TopicPartition tp) {
        FollowerSettings s = context.settings();
        return new TopicPartition(context.onRetryTopic(tp) ? s.hooksTopic() : s.retryTopic(), tp.partition());
    }
}

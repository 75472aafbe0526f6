package org.sluice.edge.store.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.StoredHook;

/**
 * Carries forward, keeping each key's order, the held hooks whose records their topic's
 * retention would delete and that {@link HookCarry}'s move cannot take (docs/fleet-log.md,
 * "Retention"):
 * <ul>
 *   <li><b>{@code fifo} hooks held on a hooks partition</b> (their destination paused, or their
 *       key's head failing). Moved alone to the retry topic and taken back as new hooks, they
 *       would be delivered after later hooks of their key. Instead, once a held {@code fifo}
 *       hook of hooks partition {@code i} is older than {@link FollowerSettings#carryAfter()},
 *       every held {@code fifo} hook of that partition up to it (so what is carried of a key is
 *       always the head of its run: nodes' clocks differ, and a later hook can be stamped
 *       earlier) is copied, in offset order, to partition {@code i} of the retry topic, which
 *       this node owns too ({@link TopicSpreadAssignor} lays out topics of one size alike), with
 *       its place in its key's order ({@link RetryRecords#POSITION}: its offset on the hooks
 *       partition). The working set keeps the hook where it is in its key's order.</li>
 *   <li><b>Any hook held on a retry partition</b> (a delivery still paused, failing or waiting)
 *       whose record is older than the carry age: copied again to the same partition, stamped
 *       now, with the same position (-1 for a hook that is not ordered).</li>
 * </ul>
 * Each copy is written whole, naming the pending destinations with their attempts and due
 * times; once the log acknowledged it, the old record is superseded
 * ({@link PartitionProgress#supersede}: finished for its partition's offset), and the copy,
 * read back as a record of a hook already held, holds it from then on. A node that takes the
 * two partitions over reads the retry one to its end before the hooks one, and puts the
 * copies in the working set in the order of their positions ({@link CarryCatchUp}).
 *
 * <p>Cost: a hook held that long is written again once per carry age (half of
 * {@code hooks_seconds}), so at most the records held per partition per carry age. Not
 * carried: the {@code fifo} hooks of a hooks partition whose retry partition of the same
 * number this node does not own (topics of different sizes), and partitions being caught up.
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class OrderedCarry {

    private static final Logger LOG = LoggerFactory.getLogger(OrderedCarry.class);

    /** A held record being carried: its partition and offset. */
    private record Slot(TopicPartition partition, long offset) {
    }

    private final FollowerContext context;
    /** Null when the carry is off ({@link FollowerSettings#carryAfter()} zero). */
    private final KafkaProducer<byte[], byte[]> producer;
    /** Copies being written, by the record they supersede; at most one per record held. */
    private final Map<Slot, Future<RecordMetadata>> writing = new HashMap<>();
    /** Read by other threads. */
    private final AtomicLong carriedCount = new AtomicLong();

    /** Carries with {@code producer} (the follower's, which it closes); none when the settings' carry age is zero. */
    OrderedCarry(FollowerContext context, KafkaProducer<byte[], byte[]> producer) {
        this.context = context;
        this.producer = context.settings().carryAfter().isZero() ? null : producer;
    }

    /** Records superseded by an acknowledged copy since start. */
    long carried() {
        return carriedCount.get();
    }

    /** Supersedes the records whose copies the log acknowledged; a copy that failed is made again by a later pass. */
    void settle(Map<TopicPartition, PartitionProgress> progress) {
        AnsweredSends.settle(writing, slot -> {
            PartitionProgress p = progress.get(slot.partition());
            if (p != null) {
                p.supersede(slot.offset());
                carriedCount.incrementAndGet();
            }
        }, (slot, failure) -> LOG.warn("carrying the record {}@{} forward failed: {}", slot.partition(), slot.offset(),
                failure.toString()));
    }

    /** Starts the carries due in the partitions of {@code progress}, except those {@code catchingUp}. */
    void start(Map<TopicPartition, PartitionProgress> progress, Predicate<TopicPartition> catchingUp) {
        if (producer == null) {
            return;
        }
        long now = context.now();
        long before = now - context.settings().carryAfter().toMillis();
        try {
            for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
                TopicPartition tp = e.getKey();
                if (catchingUp.test(tp)) {
                    continue;
                }
                if (context.onHooksTopic(tp)) {
                    TopicPartition retry = new TopicPartition(context.settings().retryTopic(), tp.partition());
                    if (progress.containsKey(retry) && !catchingUp.test(retry)) {
                        carryOrdered(tp, e.getValue(), retry.partition(), now, before);
                    }
                } else if (context.onRetryTopic(tp)) {
                    carryAgain(tp, e.getValue(), now, before);
                }
            }
        } catch (RuntimeException e) { // a read or a send refused: the records stay, and a later pass tries again
            LOG.warn("carrying held hooks forward in order failed: {}", e.toString());
        }
    }

    /** Forgets the carries of partitions that went (a copy in flight may still land: the next owner takes it as a copy). */
    void drop(Collection<TopicPartition> partitions) {
        writing.keySet().removeIf(s -> partitions.contains(s.partition()));
    }

    private void carryOrdered(TopicPartition tp, PartitionProgress p, int retryPartition, long now, long before) {
        List<PartitionProgress.Held> held = p.live();
        int last = -1;
        for (int i = 0; i < held.size(); i++) {
            if (held.get(i).stampMillis() <= before && !pendingOrdered(held.get(i).hookId()).isEmpty()) {
                last = i;
            }
        }
        for (int i = 0; i <= last; i++) {
            PartitionProgress.Held h = held.get(i);
            Slot slot = new Slot(tp, h.offset());
            if (!writing.containsKey(slot)) {
                List<DeliveryRow> pending = pendingOrdered(h.hookId());
                if (!pending.isEmpty()) {
                    send(slot, retryPartition, h.hookId(), pending, now, h.offset());
                }
            }
        }
    }

    private void carryAgain(TopicPartition tp, PartitionProgress p, long now, long before) {
        for (PartitionProgress.Held h : p.live()) {
            Slot slot = new Slot(tp, h.offset());
            if (h.stampMillis() > before || writing.containsKey(slot)) {
                continue;
            }
            List<DeliveryRow> pending = context.pending(h.hookId());
            if (!pending.isEmpty()) {
                send(slot, tp.partition(), h.hookId(), pending, now, h.position());
            }
        }
    }

    private void send(Slot slot, int partition, String hookId, List<DeliveryRow> pending, long now, long position) {
        Optional<StoredHook> hook = context.store().get(hookId);
        if (hook.isPresent()) {
            String topic = context.settings().retryTopic();
            writing.put(slot, producer.send(RetryRecords.carried(topic, partition, hook.get(), pending, now, position)));
        }
    }

    /** The hook's pending deliveries when one of them is to an ordered destination, else none. */
    private List<DeliveryRow> pendingOrdered(String hookId) {
        List<DeliveryRow> pending = context.pending(hookId);
        return context.ordered(pending) ? pending : List.of();
    }
}

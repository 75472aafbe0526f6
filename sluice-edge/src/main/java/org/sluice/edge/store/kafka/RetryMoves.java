package org.sluice.edge.store.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.StoredHook;

/**
 * A {@link LogFollower}'s moves of hooks waiting for distant retries to the retry topic
 * (its class comment, "Distant retries"). Each move goes through three steps, one per
 * commit pass at most: {@link #start} writes the hook to {@code <prefix>.retry};
 * {@link #settle}, once the log acknowledged it, makes the working set forget it; then
 * {@link #takeMoved} answers "finished" for it once, and the hooks partition commits past it.
 * A move that fails leaves the hook where it was, to be moved by a later pass.
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class RetryMoves {

    private static final Logger LOG = LoggerFactory.getLogger(RetryMoves.class);
    /** Records looked at from each head per pass. */
    private static final int WINDOW = 1_000;

    private final FollowerContext context;
    /** Null when moves are off ({@link FollowerSettings#retryMoveAfter()} zero). */
    private final KafkaProducer<byte[], byte[]> producer;
    /** Hooks being written to the retry topic, by id. */
    private final Map<String, Future<RecordMetadata>> moving = new HashMap<>();
    /** Hooks the retry topic holds now, forgotten here: finished for their hooks partition. */
    private final Set<String> moved = new HashSet<>();
    /** Read by other threads ({@link LogFollower#hooksMoved()}). */
    private final AtomicLong movedCount = new AtomicLong();

    /** Moves with {@code producer} (the follower's, which it closes), none when the settings turn moves off. */
    RetryMoves(FollowerContext context, KafkaProducer<byte[], byte[]> producer) {
        this.context = context;
        this.producer = context.settings().retryMoveAfter().isZero() ? null : producer;
    }

    /**
     * The properties of the producer that writes the retry and dead-letter topics: the
     * operator's, then acks=all from an idempotent producer, and a short wait for a topic's
     * metadata (the follower's thread sends; a missing topic must not stall it for a minute).
     */
    static Map<String, Object> producerProperties(FollowerSettings s) {
        Map<String, Object> p = new HashMap<>(s.properties());
        ClientKeys.producer(p, s.bootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1000");
        return p;
    }

    boolean enabled() {
        return producer != null;
    }

    /** Hooks moved since start. */
    long moved() {
        return movedCount.get();
    }

    /** True once for a hook the retry topic now holds: finished for its hooks partition. */
    boolean takeMoved(String hookId) {
        return moved.remove(hookId);
    }

    /**
     * Records of the retry topic naming these hooks are about to be taken into the working
     * set: a hook this node is moving is on the log then, even if the acknowledgement has
     * not been settled yet, so it is settled now (forgotten, and finished for its hooks
     * partition), and the retry record is then committed as a new hook, not as a duplicate
     * of the copy being moved out. A hook this node holds with every delivery finished
     * (delivered or dead) is a redelivery made from the admin API: the finished copy is
     * forgotten, so that the record is committed as a new hook with its deliveries pending.
     * Nulls are skipped.
     */
    void arrived(String[] hookIds) {
        List<String> landed = new ArrayList<>();
        List<String> redelivered = new ArrayList<>();
        for (String id : hookIds) {
            if (id == null) {
                continue;
            }
            if (moving.remove(id) != null) {
                landed.add(id);
            } else if (finishedHere(id)) {
                redelivered.add(id);
            }
        }
        if (!landed.isEmpty()) {
            forgetMoved(landed);
        }
        if (!redelivered.isEmpty()) {
            context.store().forget(redelivered);
        }
    }

    /** True when the working set holds the hook and none of its deliveries is pending. */
    private boolean finishedHere(String hookId) {
        List<DeliveryRow> rows = context.store().deliveries().deliveries(hookId);
        return !rows.isEmpty() && rows.stream().noneMatch(r -> r.state() == DeliveryState.PENDING);
    }

    /** Forgets the moves of hooks whose partition went (a write in flight may still land: then the hook is on both topics). */
    void drop(Collection<String> hookIds) {
        for (String id : hookIds) {
            moving.remove(id);
            moved.remove(id);
        }
    }

    /**
     * Starts moving, for each hooks partition of {@code progress}, the hooks at its head
     * whose next attempt is further away than {@link FollowerSettings#retryMoveAfter()} (up
     * to the first that is not, or that goes to an ordered destination; finished ones are
     * stepped over): each is written whole with its pending rows. Hooks of the retry topic
     * are never moved again.
     */
    void start(Map<TopicPartition, PartitionProgress> progress) {
        if (producer == null) {
            return;
        }
        long now = context.now();
        long after = context.settings().retryMoveAfter().toMillis();
        try {
            for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
                if (context.onHooksTopic(e.getKey())) {
                    startAtHead(e.getValue(), now, after);
                }
            }
        } catch (RuntimeException e) { // a read or a send refused: the hooks stay, and hold their offsets
            LOG.warn("moving hooks to {} failed: {}", context.settings().retryTopic(), e.toString());
        }
    }

    private void startAtHead(PartitionProgress p, long now, long after) {
        for (String id : p.heads(WINDOW)) {
            if (moved.contains(id) || moving.containsKey(id)) {
                continue;
            }
            List<DeliveryRow> pending = context.pending(id);
            if (pending.isEmpty()) {
                continue; // finished: the next pass commits past it
            }
            long due = Long.MAX_VALUE;
            for (DeliveryRow r : pending) {
                due = Math.min(due, r.nextAttemptAtMillis());
            }
            if (context.ordered(pending) || due - now < after) {
                return;
            }
            Optional<StoredHook> hook = context.store().get(id);
            if (hook.isPresent()) {
                String topic = context.settings().retryTopic();
                moving.put(id, producer.send(RetryRecords.record(topic, hook.get(), pending, now)));
            }
        }
    }

    /** True while the hook is being moved, or is moved and not yet committed past. */
    boolean inMotion(String hookId) {
        return moved.contains(hookId) || moving.containsKey(hookId);
    }

    /**
     * Starts moving a hook with its retry record, as {@link #start} does (for {@link HookCarry});
     * then {@link #settle} and {@link #takeMoved} treat it as any move. Only when {@link #enabled()}.
     */
    void move(String hookId, ProducerRecord<byte[], byte[]> record) {
        moving.put(hookId, producer.send(record));
    }

    /** Forgets the hooks whose move the log acknowledged; a failed move is tried again by a later pass. */
    void settle() {
        List<String> done = new ArrayList<>();
        AnsweredSends.settle(moving, done::add, (id, failure) ->
                LOG.warn("moving hook {} to {} failed: {}", id, context.settings().retryTopic(), failure.toString()));
        if (!done.isEmpty()) {
            forgetMoved(done);
        }
    }

    private void forgetMoved(List<String> done) {
        try {
            context.store().forget(done);
        } catch (RuntimeException ex) { // its rows stay here too: it may be sent by both (at least once)
            LOG.warn("forgetting {} moved hooks failed: {}", done.size(), ex.toString());
        }
        moved.addAll(done);
        movedCount.addAndGet(done.size());
    }
}

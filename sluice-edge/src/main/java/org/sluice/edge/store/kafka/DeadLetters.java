package org.sluice.edge.store.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;

/**
 * Dead letters made by this node's dispatcher, written to the dead-letter topic
 * ({@code <prefix>.dead}) before the follower commits past their hook, so that a dead
 * letter outlives the node (and its disk) that made it.
 *
 * <p>Record: a {@link HookRecords} record of the whole hook naming only its dead
 * destinations, plus for each of them, in the same order, {@value #REASON}
 * ({@code DeliveryRow.deadReason}), {@value #ATTEMPTS}, {@value #DEAD_AT} (epoch ms) and
 * {@value #LAST_STATUS} (the last HTTP status, empty when there was none). One record per
 * hook, written once its deliveries are all finished with at least one dead.
 *
 * <p>A hook's record of the hooks (or retry) topic counts as finished only once its dead
 * letter is acknowledged by the log ({@link #published}); a write that fails is made again
 * by a later pass. After a crash between the acknowledgement and the commit the hook is
 * delivered again and may die again: a dead letter may then be written twice (readers
 * key them by hook id and destination).
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class DeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
    static final String REASON = "sluice-dead-reason";
    static final String ATTEMPTS = "sluice-attempts";
    static final String DEAD_AT = "sluice-dead-at";
    static final String LAST_STATUS = "sluice-last-status";
    /** Records looked at from each head per pass. */
    private static final int WINDOW = 1_000;

    private final String topic;
    private final WorkingSet store;
    private final KafkaProducer<byte[], byte[]> producer;
    /** Dead letters being written, by hook id. */
    private final Map<String, Future<RecordMetadata>> writing = new HashMap<>();

    DeadLetters(FollowerSettings settings, WorkingSet store, KafkaProducer<byte[], byte[]> producer) {
        this.topic = settings.deadTopic();
        this.store = store;
        this.producer = producer;
    }

    /**
     * Whether the dead letters of a hook whose deliveries are all finished ({@code rows})
     * are on the log: true at once when none is dead; else true once its write was
     * acknowledged (and then forgotten here), false while it is being written or failed.
     */
    boolean published(String hookId, List<DeliveryRow> rows) {
        if (rows.stream().noneMatch(r -> r.state() == DeliveryState.DEAD)) {
            return true;
        }
        Future<RecordMetadata> f = writing.get(hookId);
        if (f == null || !f.isDone()) {
            return false;
        }
        writing.remove(hookId);
        try {
            f.get();
            return true;
        } catch (ExecutionException e) {
            LOG.warn("writing the dead letters of hook {} to {} failed: {}", hookId, topic, e.getCause().toString());
        } catch (InterruptedException e) { // cannot happen: the future is done
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * Starts writing the dead letters of the finished hooks at the head of each partition
     * of {@code progress} (up to the first hook with a pending delivery).
     */
    void start(Map<TopicPartition, PartitionProgress> progress) {
        try {
            for (PartitionProgress p : progress.values()) {
                startAtHead(p);
            }
        } catch (RuntimeException e) { // a read or a send refused: the hooks hold their offsets until a later pass
            LOG.warn("writing dead letters to {} failed: {}", topic, e.toString());
        }
    }

    private void startAtHead(PartitionProgress p) {
        for (String id : p.heads(WINDOW)) {
            if (writing.containsKey(id)) {
                continue;
            }
            List<DeliveryRow> dead = new ArrayList<>();
            for (DeliveryRow r : store.deliveries().deliveries(id)) {
                if (r.state() == DeliveryState.PENDING) {
                    return;
                }
                if (r.state() == DeliveryState.DEAD) {
                    dead.add(r);
                }
            }
            if (dead.isEmpty()) {
                continue;
            }
            Optional<StoredHook> hook = store.get(id);
            if (hook.isPresent()) {
                writing.put(id, producer.send(record(topic, hook.get(), dead)));
            }
        }
    }

    /** Forgets the writes of hooks whose partition went. */
    void drop(Collection<String> hookIds) {
        hookIds.forEach(writing::remove);
    }

    /** The dead-letter record of {@code hook}, naming its {@code dead} rows. */
    static ProducerRecord<byte[], byte[]> record(String topic, StoredHook hook, List<DeliveryRow> dead) {
        ProducerRecord<byte[], byte[]> r = RetryRecords.hookRecord(topic, hook, dead);
        for (DeliveryRow row : dead) {
            r.headers().add(REASON, utf8(row.deadReason() == null ? "" : row.deadReason()));
            r.headers().add(ATTEMPTS, utf8(Integer.toString(row.attempts())));
            r.headers().add(DEAD_AT, utf8(row.deadAtMillis() == null ? "" : Long.toString(row.deadAtMillis())));
            r.headers().add(LAST_STATUS, utf8(row.lastStatus() == null ? "" : Integer.toString(row.lastStatus())));
        }
        return r;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

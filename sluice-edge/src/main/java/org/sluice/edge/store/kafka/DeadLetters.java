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
 * <p>Record: one per dead delivery, keyed {@code <hook id>/<destination>} ({@link #key}; the
 * topic is compacted, and a redelivery writes a tombstone under that key), stamped with the
 * time of death (so the topic's {@code retention.ms} counts from it): a {@link HookRecords}
 * record of the whole hook naming only that destination, plus {@value #REASON}
 * ({@code DeliveryRow.deadReason}), {@value #ATTEMPTS}, {@value #DEAD_AT} (epoch ms),
 * {@value #LAST_STATUS} (the last HTTP status, empty when there was none) and
 * {@value #LAST_ERROR} (what went wrong without an answer, empty when nothing did: so that
 * {@code GET /v1/hooks/{id}} shows a dead delivery alike on every node). Written once the
 * hook's deliveries are all finished with at least one dead; every node indexes them
 * ({@link DeadLetterIndex}).
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
    static final String LAST_ERROR = "sluice-last-error";
    /** Records looked at from each head per pass. */
    private static final int WINDOW = 1_000;

    private final String topic;
    private final WorkingSet store;
    private final KafkaProducer<byte[], byte[]> producer;
    /** Dead letters being written, one write per dead delivery, by hook id. */
    private final Map<String, List<Future<RecordMetadata>>> writing = new HashMap<>();

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
        List<Future<RecordMetadata>> fs = writing.get(hookId);
        if (fs == null || !fs.stream().allMatch(Future::isDone)) {
            return false;
        }
        writing.remove(hookId);
        try {
            for (Future<RecordMetadata> f : fs) {
                f.get();
            }
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
                List<Future<RecordMetadata>> sent = new ArrayList<>(dead.size());
                for (DeliveryRow row : dead) {
                    sent.add(producer.send(record(topic, hook.get(), row)));
                }
                writing.put(id, sent);
            }
        }
    }

    /** Forgets the writes of hooks whose partition went. */
    void drop(Collection<String> hookIds) {
        hookIds.forEach(writing::remove);
    }

    /** The dead-letter record of {@code hook}'s dead delivery {@code row}. */
    static ProducerRecord<byte[], byte[]> record(String topic, StoredHook hook, DeliveryRow row) {
        ProducerRecord<byte[], byte[]> h = RetryRecords.hookRecord(topic, hook, List.of(row));
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, row.deadAtMillis(),
                key(hook.id(), row.destination()), h.value(), h.headers());
        r.headers().add(REASON, utf8(row.deadReason() == null ? "" : row.deadReason()));
        r.headers().add(ATTEMPTS, utf8(Integer.toString(row.attempts())));
        r.headers().add(DEAD_AT, utf8(row.deadAtMillis() == null ? "" : Long.toString(row.deadAtMillis())));
        r.headers().add(LAST_STATUS, utf8(row.lastStatus() == null ? "" : Integer.toString(row.lastStatus())));
        r.headers().add(LAST_ERROR, utf8(row.lastError() == null ? "" : row.lastError()));
        return r;
    }

    /** The key of the dead letter of hook {@code hookId} to {@code destination}: {@code <hook id>/<destination>}. */
    static byte[] key(String hookId, String destination) {
        return utf8(hookId + '/' + destination);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

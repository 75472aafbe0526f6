package org.sluice.edge.store.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;

/**
 * Copies a poll's records into a {@link LogFollower}'s working set: per partition, its hooks
 * in one write (a retry record with the attempts and due times it carries), then every record
 * tracked by the partition's {@link PartitionProgress} with its timestamp and its hook's place
 * in its key's order (its offset on the hooks topic; a retry record's {@link RetryRecords#POSITION}).
 * A record that is not a hook is logged and tracked as finished. A write that fails rewinds
 * the partition to the poll's first record, to be read again. The carried copies of a retry
 * partition being caught up are kept aside ({@link CarryCatchUp}); a retry record that is not
 * a carried copy may be a redelivery ({@link RetryMoves#arrived}).
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class RecordIntake {

    private static final Logger LOG = LoggerFactory.getLogger(RecordIntake.class);

    private final FollowerContext context;
    private final RetryMoves moves;
    private final CarryCatchUp catchUp;
    /** Read by other threads. */
    private final AtomicLong taken = new AtomicLong();

    RecordIntake(FollowerContext context, RetryMoves moves, CarryCatchUp catchUp) {
        this.context = context;
        this.moves = moves;
        this.catchUp = catchUp;
    }

    /** Hooks put in the working set since start (repeats included). */
    long taken() {
        return taken.get();
    }

    /** Counts {@code n} hooks put in the working set elsewhere (a catch-up's). */
    void counted(int n) {
        taken.addAndGet(n);
    }

    /** Copies the records of the partitions of {@code progress}; true when a partition's write failed (it was rewound). */
    boolean take(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, PartitionProgress> progress,
                 Consumer<?, ?> consumer) {
        boolean failed = false;
        for (TopicPartition tp : records.partitions()) {
            PartitionProgress p = progress.get(tp);
            if (p == null) {
                continue; // revoked within this poll
            }
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            if (!take(tp, p, list)) {
                consumer.seek(tp, list.get(0).offset());
                failed = true;
            }
        }
        return failed;
    }

    private boolean take(TopicPartition tp, PartitionProgress p, List<ConsumerRecord<byte[], byte[]>> list) {
        int n = list.size();
        List<PendingHook> hooks = new ArrayList<>(n);
        List<UUID> ids = new ArrayList<>(n);
        List<Map<String, WorkingSet.Carried>> carried = new ArrayList<>(n);
        List<CarryCatchUp.Aside> aside = new ArrayList<>();
        List<String> arrivals = new ArrayList<>();
        boolean retries = context.onRetryTopic(tp);
        String[] hookIds = new String[n];
        long[] stamps = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            ConsumerRecord<byte[], byte[]> r = list.get(i);
            try {
                HookRecords.LoggedHook logged = HookRecords.read(r);
                StoredHook h = logged.hook();
                if (logged.destinations().isEmpty()) {
                    continue; // nothing to deliver: finished as it is read
                }
                UUID id = UUID.fromString(h.id());
                long position = retries ? RetryRecords.position(r) : r.offset();
                Map<String, WorkingSet.Carried> c = retries ? RetryRecords.carried(r, logged.destinations()) : null;
                PendingHook hook = PendingHook.of(h, logged.destinations());
                if (catchUp.keepsAside(tp, position)) {
                    aside.add(new CarryCatchUp.Aside(position, r.offset(), hook, id, c));
                } else {
                    hooks.add(hook);
                    ids.add(id);
                    carried.add(c);
                }
                if (retries && position == Long.MIN_VALUE) {
                    arrivals.add(h.id()); // not a carried copy: maybe a redelivery of a hook held finished
                }
                hookIds[i] = h.id();
                stamps[i] = r.timestamp() >= 0 ? r.timestamp() : HookRecords.idMillis(id);
                positions[i] = Math.max(position, -1);
            } catch (IllegalArgumentException e) {
                LOG.warn("record {}-{}@{} passed over: {}", tp.topic(), tp.partition(), r.offset(), e.getMessage());
            }
        }
        if (!hooks.isEmpty()) {
            try {
                if (!arrivals.isEmpty()) {
                    moves.arrived(arrivals.toArray(new String[0]));
                }
                context.commitCopies(hooks, ids, carried);
            } catch (RuntimeException e) {
                LOG.warn("the working set refused {} hooks of {}: {}; reading them again", hooks.size(), tp, e.toString());
                return false;
            }
        }
        catchUp.keepAside(tp, aside);
        for (int i = 0; i < n; i++) {
            p.track(list.get(i).offset(), hookIds[i], stamps[i], positions[i]);
        }
        taken.addAndGet(hooks.size());
        return true;
    }
}

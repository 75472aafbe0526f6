package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.ReplaySource;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;

/**
 * A replay on the fleet's log ({@code store.kind: kafka}, docs/fleet-log.md, "Replays"): a
 * reader of the hooks topic, with no group, from the range's start to its end, that copies
 * each hook delivered to the destination into the node's {@link WorkingSet} with one pending
 * delivery, to that destination only. The node's dispatcher then sends it as any other:
 * the destination's {@code rate}, {@code max_in_flight}, breaker, retries and dead letters.
 * The log is read, never one row per hook: each poll's hooks are copied in one write of at
 * most {@value #BATCH}.
 *
 * <h2>The range on the log</h2>
 * A record's timestamp is its hook id's millisecond ({@link HookRecords}).
 * <ul>
 *   <li>{@link #count}: per partition, the offsets {@code offsetsForTimes} gives for
 *       {@code from} and for {@code to} (the log's end where nothing is stamped that late);
 *       the sum of their differences: every record stamped in the range as the time index
 *       sees it, of every source, those the destination does not receive included.</li>
 *   <li>{@link #schedule}: reads each partition from the first record stamped at or after
 *       {@code from} - {@value HookFinder#SKEW_MS} ms to the first stamped at or after
 *       {@code to} + {@value HookFinder#SKEW_MS} ms + {@code timeout_ms} (the log's end as
 *       the replay starts where there is none), so that a hook stamped by a node whose clock
 *       was behind another's is still found (the bound is {@link HookFinder}'s), and keeps
 *       the records stamped in {@code [from, to)} whose {@code sluice-destination} headers
 *       name the destination.</li>
 * </ul>
 *
 * <h2>A hook the working set already holds</h2>
 * When this node's working set holds the hook already (its partition is this node's, or an
 * earlier replay copied it), the copy is answered DUPLICATE: a hook whose deliveries are all
 * delivered is forgotten and copied again (one write for the batch); one with a delivery
 * pending or dead gets a fresh delivery to the destination ({@code DeliveryLedger.redeliver},
 * one durable write). When the follower reads a hook after its replayed copy (it was
 * behind), {@link #completeCopies} gives the hook its other destinations' deliveries. A
 * partition that leaves this node takes the replay's pending copies of the hooks the
 * follower held from it along ({@code WorkingSet.forget}): those are not sent by the replay.
 *
 * <h2>{@code dead_only}</h2>
 * The dead letters are on {@code <prefix>.dead}, not in the range's records: a replay of dead
 * deliveries only counts and walks the fleet's dead letters to the destination whose hooks
 * are stamped in the range, as this node's index holds them, and redelivers each through the
 * retry topic ({@link KafkaFleetDeliveries#redeliverDeadIn}, the path of
 * {@code POST /v1/hooks/{id}/redeliver}): the node owning the hook's retry partition
 * delivers it, and the dead letter leaves every node's list.
 *
 * <p>Thread-safe: each call uses its own consumer.
 */
final class LogReplay implements ReplaySource {

    /** The most hooks copied into the working set in one write. */
    static final int BATCH = 256;
    private static final Logger LOG = LoggerFactory.getLogger(LogReplay.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final KafkaLogSettings settings;
    private final LogClients clients;
    private final WorkingSet workingSet;
    private final KafkaFleetDeliveries deadLetters;

    LogReplay(KafkaLogSettings settings, LogClients clients, WorkingSet workingSet, KafkaFleetDeliveries deadLetters) {
        this.settings = settings;
        this.clients = clients;
        this.workingSet = workingSet;
        this.deadLetters = deadLetters;
    }

    @Override
    public long count(String destination, long fromMillis, long toMillis, boolean deadOnly) {
        if (deadOnly) {
            return deadLetters.deadIn(destination, fromMillis, toMillis);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer()) {
            long records = 0;
            for (long[] span : spans(consumer, fromMillis, toMillis).values()) {
                records += span[1] - span[0];
            }
            return records;
        } catch (KafkaException e) {
            throw unreadable(e);
        }
    }

    @Override
    public void schedule(String destination, long fromMillis, long toMillis, boolean deadOnly, LongSupplier wallMillis,
                         Pacing pacing) {
        if (deadOnly) {
            deadLetters.redeliverDeadIn(destination, fromMillis, toMillis, pacing);
            return;
        }
        long slack = HookFinder.SKEW_MS;
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer()) {
            Map<TopicPartition, long[]> spans = spans(consumer, Math.max(0, fromMillis - slack),
                    toMillis + slack + settings.timeoutMs());
            spans.values().removeIf(span -> span[0] >= span[1]);
            consumer.assign(spans.keySet());
            spans.forEach((tp, span) -> consumer.seek(tp, span[0]));
            Copies copies = new Copies(destination, wallMillis, pacing);
            long quietNanos = TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs()) * 6;
            long lastRecord = System.nanoTime();
            while (!spans.isEmpty()) {
                var records = consumer.poll(POLL);
                if (records.isEmpty() && System.nanoTime() - lastRecord > quietNanos) {
                    throw new HookStoreException("the replay's reader of " + settings.hooksTopic() + " got no record for "
                            + TimeUnit.NANOSECONDS.toMillis(quietNanos) + " ms with partitions " + spans.keySet() + " unread");
                }
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    long[] span = spans.get(tp);
                    if (span == null || r.offset() >= span[1]) {
                        continue;
                    }
                    if (r.offset() + 1 >= span[1]) {
                        spans.remove(tp);
                        consumer.pause(List.of(tp));
                    }
                    if (r.timestamp() >= fromMillis && r.timestamp() < toMillis && !copies.offer(r)) {
                        return;
                    }
                }
                copies.flush();
                if (!records.isEmpty()) {
                    lastRecord = System.nanoTime(); // after the pacing's waits: only the brokers' silence counts
                }
            }
        } catch (KafkaException e) {
            throw unreadable(e);
        }
    }

    /**
     * Per partition of the hooks topic, {@code [start, end)}: the first offsets stamped at or
     * after {@code fromMillis} and at or after {@code toMillis}, each the log's end (read now)
     * where nothing is stamped that late.
     */
    private Map<TopicPartition, long[]> spans(KafkaConsumer<byte[], byte[]> consumer, long fromMillis, long toMillis) {
        Duration wait = Duration.ofMillis(settings.timeoutMs());
        List<PartitionInfo> infos = consumer.partitionsFor(settings.hooksTopic(), wait);
        Map<TopicPartition, long[]> spans = new HashMap<>();
        if (infos == null || infos.isEmpty()) {
            return spans;
        }
        Map<TopicPartition, Long> froms = new HashMap<>();
        Map<TopicPartition, Long> tos = new HashMap<>();
        for (PartitionInfo i : infos) {
            TopicPartition tp = new TopicPartition(i.topic(), i.partition());
            froms.put(tp, fromMillis);
            tos.put(tp, toMillis);
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(froms.keySet(), wait);
        Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(froms, wait);
        Map<TopicPartition, OffsetAndTimestamp> stops = consumer.offsetsForTimes(tos, wait);
        for (TopicPartition tp : froms.keySet()) {
            long end = ends.get(tp);
            long stop = Math.min(end, offsetOr(stops.get(tp), end));
            spans.put(tp, new long[] {Math.min(stop, offsetOr(starts.get(tp), end)), stop});
        }
        return spans;
    }

    private static long offsetOr(OffsetAndTimestamp found, long otherwise) {
        return found == null ? otherwise : found.offset();
    }

    /** The hooks of one replay on their way into the working set, one write per poll or per {@link #BATCH}. */
    private final class Copies {
        private final String destination;
        private final List<String> only;
        private final LongSupplier wallMillis;
        private final Pacing pacing;
        private final List<PendingHook> hooks = new ArrayList<>(BATCH);
        private final List<UUID> ids = new ArrayList<>(BATCH);

        Copies(String destination, LongSupplier wallMillis, Pacing pacing) {
            this.destination = destination;
            this.only = List.of(destination);
            this.wallMillis = wallMillis;
            this.pacing = pacing;
        }

        /** Takes the record when it is a hook to the destination, once admitted; false when the replay must stop. */
        boolean offer(ConsumerRecord<byte[], byte[]> r) {
            HookRecords.LoggedHook logged;
            try {
                logged = HookRecords.read(r);
            } catch (IllegalArgumentException e) {
                LOG.warn("replay to {}: record {}-{}@{} passed over: {}", destination, r.topic(), r.partition(), r.offset(),
                        e.getMessage());
                return true;
            }
            if (!logged.destinations().contains(destination)) {
                return true;
            }
            if (!pacing.admit()) {
                flush();
                return false;
            }
            StoredHook h = logged.hook();
            hooks.add(PendingHook.of(h, only));
            ids.add(UUID.fromString(h.id()));
            if (hooks.size() >= BATCH) {
                flush();
            }
            return true;
        }

        /**
         * Writes the hooks taken. A hook the working set holds already (answered DUPLICATE)
         * whose deliveries are all delivered is forgotten and written again, with the others
         * in one write; one with a delivery pending or dead (its dead letter perhaps not yet
         * on the dead-letter topic) gets a fresh delivery to the destination instead, one
         * durable write each.
         */
        void flush() {
            if (hooks.isEmpty()) {
                return;
            }
            List<CommitResult> results = workingSet.commitWithIds(hooks, ids);
            List<String> delivered = new ArrayList<>();
            List<PendingHook> again = new ArrayList<>();
            List<UUID> againIds = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).status() != CommitResult.Status.DUPLICATE) {
                    continue;
                }
                String id = results.get(i).id();
                if (workingSet.deliveries().deliveries(id).stream().allMatch(r -> r.state() == DeliveryState.DELIVERED)) {
                    delivered.add(id);
                    again.add(hooks.get(i));
                    againIds.add(ids.get(i));
                } else {
                    workingSet.deliveries().redeliver(id, only, wallMillis.getAsLong());
                }
            }
            if (!delivered.isEmpty()) {
                workingSet.forget(delivered);
                workingSet.commitWithIds(again, againIds);
            }
            pacing.scheduled(hooks.size());
            hooks.clear();
            ids.clear();
        }
    }

    /**
     * After the follower's write of {@code hooks}: each answered DUPLICATE whose copy in the
     * working set lacks a delivery to one of the destinations it was logged for (the copy
     * was a replay's, made before the follower read the record) gets those deliveries, due
     * now. A record read twice by the follower has every delivery already: nothing changes.
     */
    static void completeCopies(WorkingSet workingSet, List<PendingHook> hooks, List<CommitResult> results,
                               LongSupplier wallMillis) {
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i).status() != CommitResult.Status.DUPLICATE) {
                continue;
            }
            String id = results.get(i).id();
            Set<String> missing = new HashSet<>(hooks.get(i).destinations());
            for (DeliveryRow row : workingSet.deliveries().deliveries(id)) {
                missing.remove(row.destination());
            }
            if (!missing.isEmpty()) {
                workingSet.deliveries().redeliver(id, List.copyOf(missing), wallMillis.getAsLong());
            }
        }
    }

    private HookStoreException unreadable(KafkaException e) {
        return new HookStoreException("cannot read the range from the log (" + settings.location() + "): "
                + e.getMessage(), e);
    }
}

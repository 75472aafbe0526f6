package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
import org.sluice.edge.store.ReplayStream;
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
 * earlier replay copied it), the copy is answered DUPLICATE, and the hook gets a fresh
 * delivery to the destination whatever its row there was (delivered, pending or dead), its
 * other rows untouched: {@link WorkingSet#redeliverHeld}, one write for every such hook of
 * the batch. (Until issue 45's replay work a delivered one was forgotten and copied again,
 * and each other one redelivered in a durable write of its own: a replay of hooks this
 * node had delivered wrote every body twice.) When the follower reads a hook after its
 * replayed copy (it was behind), {@link #completeCopies} gives the hook its other
 * destinations' deliveries. A
 * partition that leaves this node takes the replay's pending copies of the hooks the
 * follower held from it along ({@code WorkingSet.forget}): those are not sent by the replay.
 *
 * <h2>Streaming</h2>
 * When {@link ReplaySource.Pacing#stream()} gives the destination's direct path (a
 * {@code kafka} destination: docs/fleet-log.md, "Streaming to a {@code kafka} destination"),
 * a batch whose {@link ReplayStream#open} holds sends each hook with it instead of copying
 * it, unless the working set holds the hook with a pending delivery to the destination
 * (looked up per hook only while the ledger's {@link org.sluice.edge.store.DeliveryLedger#pendingCount}
 * is above 0 at the batch's start). A send not acknowledged, and each hook the stream does
 * not take, is copied at the next write as above (counted once in {@code scheduled}); after
 * the range's last record the reader waits for every send's answer and writes the last of
 * them. The stream bounds its sends out itself.
 *
 * <h2>Bounds</h2>
 * The reader copies at the replay's {@code rate}, and the dispatcher sends at the
 * destination's pace; where the first is faster, copies would pile up in the working set.
 * So after each write the reader waits while {@value #MAX_WAITING} deliveries to the
 * destination are pending there (the ledger's counter, read with no seek, which the follower's pending hooks
 * share: a destination behind on its live traffic slows the replay down too). A paused or
 * failing destination therefore holds a replay's thread until it drains. Memory is one
 * poll's records ({@code max.poll.records}) and one batch.
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
    /**
     * The most deliveries to the destination pending in the working set before the replay
     * reads on: what a {@code rate} above the node's delivery rate queues (see "Bounds").
     */
    static final int MAX_WAITING = 10_000;
    /** How long the reader parks between two looks at the working set while it is full. */
    private static final long ROOM_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Logger LOG = LoggerFactory.getLogger(LogReplay.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final KafkaLogSettings settings;
    private final LogClients clients;
    private final WorkingSet workingSet;
    private final KafkaFleetDeliveries deadLetters;
    private final int maxWaiting;
    private final AtomicLong waitsForRoom = new AtomicLong();

    LogReplay(KafkaLogSettings settings, LogClients clients, WorkingSet workingSet, KafkaFleetDeliveries deadLetters) {
        this(settings, clients, workingSet, deadLetters, MAX_WAITING);
    }

    /** As the other, with {@code maxWaiting} in place of {@value #MAX_WAITING} (tests). */
    LogReplay(KafkaLogSettings settings, LogClients clients, WorkingSet workingSet, KafkaFleetDeliveries deadLetters,
              int maxWaiting) {
        this.settings = settings;
        this.clients = clients;
        this.workingSet = workingSet;
        this.deadLetters = deadLetters;
        this.maxWaiting = maxWaiting;
    }

    /** How many times a reader of this node found the working set full and waited for room (see "Bounds"). */
    long waitsForRoom() {
        return waitsForRoom.get();
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
                if (!copies.flush()) {
                    return;
                }
                if (!records.isEmpty()) {
                    lastRecord = System.nanoTime(); // after the pacing's waits: only the brokers' silence counts
                }
            }
            copies.finish();
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

    /**
     * The hooks of one replay on their way to the destination: streamed when the destination
     * takes them directly (see "Streaming"), else into the working set, one write per poll or
     * per {@link #BATCH}.
     */
    private final class Copies {
        private final String destination;
        private final List<String> only;
        private final LongSupplier wallMillis;
        private final Pacing pacing;
        private final List<PendingHook> hooks = new ArrayList<>(BATCH);
        private final List<UUID> ids = new ArrayList<>(BATCH);
        /** The destination's direct path, or null: every hook goes into the working set. */
        private final ReplayStream stream;
        /** Streamed hooks not acknowledged (an error, a timeout): into the working set at the next write. */
        private final Queue<StoredHook> fallbacks = new ConcurrentLinkedQueue<>();
        /** Streamed hooks not yet answered. */
        private final AtomicInteger out = new AtomicInteger();
        /** Whether this batch streams ({@link ReplayStream#open}, asked at each write). */
        private boolean streaming;
        /** Whether the working set had deliveries to the destination pending at the batch's start. */
        private boolean pendingSeen;
        /** Hooks streamed since the last write. */
        private int streamed;

        Copies(String destination, LongSupplier wallMillis, Pacing pacing) {
            this.destination = destination;
            this.only = List.of(destination);
            this.wallMillis = wallMillis;
            this.pacing = pacing;
            this.stream = pacing.stream();
            nextBatch();
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
            if (streaming && !(pendingSeen && heldPending(h.id())) && streamed(h)) {
                return hooks.size() + streamed < BATCH || flush();
            }
            hooks.add(PendingHook.of(h, only));
            ids.add(UUID.fromString(h.id()));
            return hooks.size() + streamed < BATCH || flush();
        }

        /** Sends {@code h} directly; false when the stream did not take it (the rest of the batch is copied). */
        private boolean streamed(StoredHook h) {
            var sent = stream.send(h);
            if (sent == null) {
                streaming = false;
                return false;
            }
            out.incrementAndGet();
            streamed++;
            sent.whenComplete((acknowledged, e) -> {
                if (!Boolean.TRUE.equals(acknowledged)) {
                    fallbacks.add(h);
                }
                out.decrementAndGet(); // after the fallback is queued: finish() reads both in this order
            });
            return true;
        }

        /** Whether the working set holds the hook with a pending delivery to the destination (streaming it would repeat it). */
        private boolean heldPending(String id) {
            for (DeliveryRow row : workingSet.deliveries().deliveries(id)) {
                if (row.destination().equals(destination) && row.state() == DeliveryState.PENDING) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the next batch streams, asked once per batch. */
        private void nextBatch() {
            streaming = stream != null && stream.open();
            pendingSeen = streaming && workingSet.deliveries().pendingCount(destination) > 0;
        }

        /**
         * Starts the hooks streamed; writes the hooks taken and the streamed ones not
         * acknowledged, in one write; those the working set holds already (answered
         * DUPLICATE) get a fresh delivery to the destination, all in one more write
         * ({@link WorkingSet#redeliverHeld}). Then waits for room (see "Bounds"). False when
         * the replay's thread was interrupted meanwhile.
         */
        boolean flush() {
            if (stream != null) {
                stream.flush();
            }
            if (streamed > 0) {
                pacing.scheduled(streamed);
                streamed = 0;
            }
            int again = 0; // streamed, scheduled already
            for (StoredHook h = fallbacks.poll(); h != null; h = fallbacks.poll()) {
                hooks.add(PendingHook.of(h, only));
                ids.add(UUID.fromString(h.id()));
                again++;
            }
            if (hooks.isEmpty()) {
                nextBatch();
                return true;
            }
            List<CommitResult> results = workingSet.commitWithIds(hooks, ids);
            List<String> held = new ArrayList<>();
            for (CommitResult result : results) {
                if (result.status() == CommitResult.Status.DUPLICATE) {
                    held.add(result.id());
                }
            }
            if (!held.isEmpty()) {
                workingSet.redeliverHeld(held, destination, wallMillis.getAsLong());
            }
            pacing.scheduled(hooks.size() - again);
            hooks.clear();
            ids.clear();
            boolean room = awaitRoom();
            nextBatch();
            return room;
        }

        /**
         * After the range's last record: waits until every streamed hook is answered, then
         * writes those not acknowledged. False when the thread was interrupted meanwhile (they
         * stay unwritten: a replay stops where it is).
         */
        boolean finish() {
            if (stream != null) {
                stream.flush();
            }
            while (out.get() > 0) {
                LockSupport.parkNanos(ROOM_PARK_NANOS);
                if (Thread.currentThread().isInterrupted()) {
                    return false;
                }
            }
            return flush();
        }

        /** Parks while {@value #MAX_WAITING} deliveries to the destination are pending in the working set. */
        private boolean awaitRoom() {
            boolean counted = false;
            while (workingSet.deliveries().pendingCount(destination) >= maxWaiting) {
                if (!counted) {
                    waitsForRoom.incrementAndGet();
                    counted = true;
                }
                LockSupport.parkNanos(ROOM_PARK_NANOS);
                if (Thread.currentThread().isInterrupted()) {
                    return false;
                }
            }
            return true;
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

package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.FleetDeliveries;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.ReplaySource;
import org.sluice.edge.store.StoredHook;

/**
 * The fleet's deliveries as any node's admin API sees them under {@code store.kind: kafka}
 * (docs/fleet-log.md, "Dead letters and redelivery, fleet-wide"): every dead letter of the
 * fleet from this node's {@link DeadLetterIndex} of {@code <prefix>.dead}; a redelivery made
 * through the log, so that the node owning the hook's share delivers it; the delivery
 * group's lag ({@link GroupLag}).
 *
 * <h2>Redelivery</h2>
 * <ol>
 *   <li>The hook is read from its record on the hooks topic ({@link HookFinder}) or, past
 *       that, from its dead letter's record (by the offset the index keeps).</li>
 *   <li>A record of the whole hook is produced to {@code <prefix>.retry} ({@link RetryRecords})
 *       naming the destinations, each at attempt 0 and due now, and its acknowledgement
 *       awaited ({@code timeout_ms}). The group's owner of that retry partition takes it into
 *       its working set (a copy it holds already finished is replaced) and delivers it.</li>
 *   <li>Then a tombstone under each redelivered dead letter's key; once acknowledged the
 *       entries leave this node's index at once, and every other node's when it reads them.</li>
 * </ol>
 * A failure in step 2 or 3 answers 503: after a failed step 3 the delivery is scheduled and
 * the dead letter still listed (a second redelivery sends the hook again: at least once).
 *
 * <p>Thread-safe. Uses the log's producer and admin client (shared with the intake).
 */
public final class KafkaFleetDeliveries implements FleetDeliveries, AutoCloseable {

    private final KafkaLogSettings settings;
    private final LogClients clients;
    private final HookFinder finder;
    private final DeadLetterIndex index;
    private final GroupLag lag;
    private final LongSupplier wallMillis;

    private KafkaFleetDeliveries(KafkaHookLog log, int maxDeadLetters, LongSupplier wallMillis) {
        this.settings = log.settings();
        this.clients = log.clients();
        this.finder = log.finder();
        this.wallMillis = wallMillis;
        this.index = new DeadLetterIndex(settings.deadTopic(), clients::consumer, maxDeadLetters,
                settings.deadRetentionMs(), wallMillis);
        this.lag = new GroupLag(new LogAccess(settings, clients, wallMillis));
    }

    /**
     * Starts indexing the dead-letter topic of {@code log} and waits at most {@code timeout_ms}
     * for the first read to its end (past that the node starts, and the listing answers 503
     * until the index has caught up).
     */
    public static KafkaFleetDeliveries open(KafkaHookLog log, LongSupplier wallMillis) {
        return open(log, DeadLetterIndex.DEFAULT_MAX_ENTRIES, wallMillis);
    }

    /** As {@link #open(KafkaHookLog, LongSupplier)}, with at most {@code maxDeadLetters} dead letters indexed. */
    static KafkaFleetDeliveries open(KafkaHookLog log, int maxDeadLetters, LongSupplier wallMillis) {
        KafkaFleetDeliveries fleet = new KafkaFleetDeliveries(log, maxDeadLetters, wallMillis);
        try {
            fleet.index.awaitCaughtUp(fleet.settings.timeoutMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return fleet;
    }

    // ================================================================ dead letters

    @Override
    public DeadLetterPage deadLetters(String destination, String afterId, int limit) {
        String after = null;
        if (afterId != null) {
            UUID u = HookFinder.parse(afterId);
            if (u == null) {
                throw new IllegalArgumentException("not a hook id: " + afterId);
            }
            after = u.toString();
        }
        checkCaughtUp();
        return index.page(destination, after, limit);
    }

    @Override
    public long deadCount(String destination) {
        return index.count(destination);
    }

    @Override
    public List<DeliveryRow> deadDeliveriesOf(String hookId) {
        UUID id = HookFinder.parse(hookId);
        if (id == null) {
            return List.of();
        }
        checkCaughtUp();
        return index.of(id.toString()).stream().map(DeadLetterIndex.Entry::row).toList();
    }

    /** Dead letters indexed now. */
    public int deadLettersIndexed() {
        return index.size();
    }

    /** Dead letters that left the index at its bound since start (still on the topic until its retention). */
    public long deadLettersUnindexed() {
        return index.unindexed();
    }

    private void checkCaughtUp() {
        if (!index.caughtUp()) {
            throw new HookStoreException("the dead-letter topic " + settings.deadTopic()
                    + " has not been read to its end yet");
        }
    }

    // ================================================================ redelivery

    @Override
    public Optional<List<String>> destinationsOf(String hookId) {
        UUID id = HookFinder.parse(hookId);
        if (id == null) {
            return Optional.empty();
        }
        checkCaughtUp();
        Set<String> names = new LinkedHashSet<>();
        Optional<HookRecords.LoggedHook> logged = read(finder::find, id.toString());
        logged.ifPresent(h -> names.addAll(h.destinations()));
        List<DeadLetterIndex.Entry> dead = index.of(id.toString());
        dead.forEach(e -> names.add(e.destination()));
        return logged.isEmpty() && dead.isEmpty() ? Optional.empty() : Optional.of(List.copyOf(names));
    }

    @Override
    public Optional<Integer> redeliver(String hookId, List<String> destinations) {
        UUID id = HookFinder.parse(hookId);
        if (id == null) {
            return Optional.empty();
        }
        checkCaughtUp();
        String canonical = id.toString();
        List<DeadLetterIndex.Entry> dead = index.of(canonical);
        Optional<HookRecords.LoggedHook> logged = read(finder::find, canonical);
        if (logged.isEmpty() && !dead.isEmpty()) {
            logged = read(this::deadRecord, dead.get(0));
        }
        if (logged.isEmpty()) {
            return Optional.empty();
        }
        if (destinations.isEmpty()) {
            return Optional.of(0);
        }
        long now = wallMillis.getAsLong();
        List<DeliveryRow> rows = new ArrayList<>(destinations.size());
        for (String d : destinations) {
            rows.add(new DeliveryRow(canonical, d, DeliveryState.PENDING, 0, now, now, now, null, null, null, null, null));
        }
        StoredHook hook = logged.get().hook();
        Producer<byte[], byte[]> producer = clients.producer();
        await(List.of(send(producer, RetryRecords.record(settings.retryTopic(), hook, rows, now))), "the redelivery of " + canonical);
        List<Future<RecordMetadata>> tombstones = new ArrayList<>();
        List<DeadLetterIndex.Entry> removed = new ArrayList<>();
        for (DeadLetterIndex.Entry e : dead) {
            if (destinations.contains(e.destination())) {
                tombstones.add(send(producer, new ProducerRecord<>(settings.deadTopic(),
                        DeadLetters.key(canonical, e.destination()), null)));
                removed.add(e);
            }
        }
        await(tombstones, "removing the dead letters of " + canonical);
        removed.forEach(e -> index.remove(e.hookId(), e.destination()));
        return Optional.of(rows.size());
    }

    // ================================================================ dead-only replays

    /**
     * A {@code dead_only} replay's count: the dead letters to {@code destination} indexed now
     * whose hooks' ids are stamped in {@code [fromMillis, toMillis)}.
     */
    long deadIn(String destination, long fromMillis, long toMillis) {
        checkCaughtUp();
        return index.hooksDeadIn(destination, fromMillis, toMillis).size();
    }

    /**
     * A {@code dead_only} replay's walk: each dead letter of {@link #deadIn} (as indexed when
     * the walk starts, in id order) still indexed when its turn comes, once {@code pacing}
     * admits it, redelivered to {@code destination} alone by {@link #redeliver} (one record
     * on the retry topic and one tombstone, each acknowledged). A dead letter redelivered by
     * other means meanwhile is passed over; one whose hook the log no longer holds is not
     * counted as scheduled.
     */
    void redeliverDeadIn(String destination, long fromMillis, long toMillis, ReplaySource.Pacing pacing) {
        checkCaughtUp();
        List<String> only = List.of(destination);
        for (String hookId : index.hooksDeadIn(destination, fromMillis, toMillis)) {
            if (!index.isDead(hookId, destination)) {
                continue;
            }
            if (!pacing.admit()) {
                return;
            }
            if (redeliver(hookId, only).isPresent()) {
                pacing.scheduled(1);
            }
        }
    }

    private static Future<RecordMetadata> send(Producer<byte[], byte[]> producer, ProducerRecord<byte[], byte[]> r) {
        try {
            return producer.send(r);
        } catch (KafkaException e) {
            throw new HookStoreException("the log refused a record for " + r.topic() + ": " + e.getMessage(), e);
        }
    }

    private void await(List<Future<RecordMetadata>> sent, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw new HookStoreException(what + " was not acknowledged by the log: " + e.getCause(), e);
            } catch (TimeoutException e) {
                throw new HookStoreException(what + " was not acknowledged within store.kafka.timeout_ms ("
                        + settings.timeoutMs() + " ms)", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HookStoreException(what + " was interrupted", e);
            }
        }
    }

    /** A read of the log, its Kafka failures as {@link HookStoreException}. */
    private static <T> Optional<HookRecords.LoggedHook> read(java.util.function.Function<T, Optional<HookRecords.LoggedHook>> how,
                                                             T what) {
        try {
            return how.apply(what);
        } catch (KafkaException e) {
            throw new HookStoreException("cannot read the log: " + e.getMessage(), e);
        }
    }

    /** The hook a dead letter's record carries, read at its offset; empty when the record is gone. */
    private Optional<HookRecords.LoggedHook> deadRecord(DeadLetterIndex.Entry e) {
        TopicPartition tp = new TopicPartition(settings.deadTopic(), e.partition());
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer()) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, e.offset());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.offset() < e.offset()) {
                        continue;
                    }
                    return r.offset() == e.offset() && r.value() != null ? Optional.of(HookRecords.read(r)) : Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    // ================================================================ lag

    @Override
    public long unfinishedRecords() {
        return lag.records();
    }

    /** Stops the index's thread. */
    @Override
    public void close() {
        index.close();
    }
}

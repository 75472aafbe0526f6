package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.UuidV7;

/**
 * Finds a hook on the hooks topic by its id, with no index of its own: the id is a UUIDv7,
 * whose millisecond is the record's timestamp ({@link HookRecords}).
 *
 * <ol>
 *   <li>An id whose millisecond is older than {@code retention.hooks_seconds} is gone, even
 *       while its segment is still on a broker's disk (Kafka deletes whole segments, late),
 *       unless the delivery group has not committed past its record: a hook with a pending
 *       delivery is kept whatever its age, as on the RocksDB store (a record behind a held
 *       one in its partition is found too, until the group commits past it), or while the
 *       group has not committed past a record of it on the retry topic (a held hook carried
 *       forward there, {@link HookCarry}: read from each retry partition's committed offset to
 *       its end; the hooks topic's record is answered while it is still there, else the
 *       retry record's, which names only the destinations still pending).</li>
 *   <li>{@code offsetsForTimes} on every partition gives the first record stamped at or after
 *       that millisecond: the hook, if the log has it, is at or after that offset.</li>
 *   <li>From there each partition is read forward, comparing the {@code sluice-id} header, and
 *       given up at the first record stamped more than {@value #SKEW_MS} ms +
 *       {@code timeout_ms} after the id's millisecond (a record stamped that late was made after
 *       the hook was acknowledged, or answered 503, on any node whose clock is within
 *       {@value #SKEW_MS} ms of the others), at its end, or after {@value #MAX_RECORDS}
 *       records.</li>
 * </ol>
 * The whole lookup takes at most {@code timeout_ms} of reading (then it answers "not found"),
 * plus the metadata calls, each bounded by {@code timeout_ms}.
 *
 * <p>Thread-safe: each lookup uses its own consumer (admin reads are rare).
 */
final class HookFinder {

    /** The clock skew between nodes the lookup allows for, in ms. */
    static final long SKEW_MS = 30_000;
    /** The most records read per partition in one lookup. */
    static final int MAX_RECORDS = 10_000;

    private final LogAccess log;

    HookFinder(LogAccess log) {
        this.log = log;
    }

    /** The hook with this id, or empty (also for a string that is not a UUIDv7, or a hook past retention). */
    Optional<HookRecords.LoggedHook> find(String id) {
        UUID uuid = parse(id);
        if (uuid == null) {
            return Optional.empty();
        }
        long millis = UuidV7.millisOf(uuid);
        boolean pastRetention = millis < log.now() - log.settings().hooksRetentionMs();
        String canonical = uuid.toString();
        try (KafkaConsumer<byte[], byte[]> consumer = log.clients().consumer()) {
            Optional<ConsumerRecord<byte[], byte[]>> found = scan(consumer, canonical, millis);
            if (!pastRetention || found.isPresent() && unfinished(found.get())) {
                return found.map(HookRecords::read);
            }
            // carried forward to the retry topic while held (HookCarry): kept while unfinished there
            Optional<ConsumerRecord<byte[], byte[]>> held = scanUnfinishedRetries(consumer, canonical);
            return held.isEmpty() ? Optional.empty() : Optional.of(HookRecords.read(found.orElse(held.get())));
        } catch (KafkaException e) {
            throw new HookStoreException("cannot read hook " + canonical + " from the log (" + log.settings().location()
                    + "): " + e.getMessage(), e);
        }
    }

    /**
     * True when the delivery group has not committed past {@code r} (it holds a delivery of
     * it, or of a hook before it in its partition, unfinished). A partition the group never
     * committed counts as finished: a follower re-commits a held record's offset every
     * commit interval.
     */
    private boolean unfinished(ConsumerRecord<byte[], byte[]> r) {
        OffsetAndMetadata at = groupOffsets().get(new TopicPartition(r.topic(), r.partition()));
        return at != null && r.offset() >= at.offset();
    }

    private Map<TopicPartition, OffsetAndMetadata> groupOffsets() {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = log.clients().admin().listConsumerGroupOffsets(log.settings().groupId())
                    .partitionsToOffsetAndMetadata().get(log.settings().timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HookStoreException("interrupted reading the delivery group's offsets (" + log.settings().location()
                    + ")", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new HookStoreException("cannot read the delivery group's offsets (" + log.settings().location() + "): "
                    + e.getMessage(), e);
        }
        return committed;
    }

    /**
     * The record of the retry topic naming the hook that the delivery group has not committed
     * past, if any: each partition the group committed is read from its committed offset to
     * its end (at most {@value #MAX_RECORDS} records each, {@code timeout_ms} in all).
     */
    private Optional<ConsumerRecord<byte[], byte[]>> scanUnfinishedRetries(KafkaConsumer<byte[], byte[]> consumer, String id) {
        Duration wait = Duration.ofMillis(log.settings().timeoutMs());
        Map<TopicPartition, Long> starts = new HashMap<>();
        groupOffsets().forEach((tp, o) -> {
            if (o != null && tp.topic().equals(log.settings().retryTopic())) {
                starts.put(tp, o.offset());
            }
        });
        if (starts.isEmpty()) {
            return Optional.empty();
        }
        return read(consumer, id, starts, wait, r -> false);
    }

    private Optional<ConsumerRecord<byte[], byte[]>> scan(KafkaConsumer<byte[], byte[]> consumer, String id, long millis) {
        Duration wait = Duration.ofMillis(log.settings().timeoutMs());
        List<PartitionInfo> infos = consumer.partitionsFor(log.settings().hooksTopic(), wait);
        if (infos == null || infos.isEmpty()) {
            return Optional.empty();
        }
        Map<TopicPartition, Long> at = new HashMap<>();
        for (PartitionInfo i : infos) {
            at.put(new TopicPartition(i.topic(), i.partition()), millis);
        }
        Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(at, wait);
        Map<TopicPartition, Long> from = new HashMap<>();
        starts.forEach((tp, o) -> {
            if (o != null) { // null: nothing stamped at or after the id's millisecond there
                from.put(tp, o.offset());
            }
        });
        if (from.isEmpty()) {
            return Optional.empty();
        }
        long lastStamp = millis + SKEW_MS + log.settings().timeoutMs();
        return read(consumer, id, from, wait, r -> r.timestamp() > lastStamp);
    }

    /**
     * Reads each partition of {@code from} forward from its offset for the record whose id
     * header is {@code id}; a partition is given up at its end, after {@value #MAX_RECORDS}
     * records, or at the first record {@code pastIt} says is too late to be the one; the
     * whole read at most {@code wait}.
     */
    private Optional<ConsumerRecord<byte[], byte[]>> read(KafkaConsumer<byte[], byte[]> consumer, String id,
                                                         Map<TopicPartition, Long> from, Duration wait,
                                                         Predicate<ConsumerRecord<byte[], byte[]>> pastIt) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(from.keySet(), wait);
        Set<TopicPartition> open = new HashSet<>(from.keySet());
        open.removeIf(tp -> from.get(tp) >= ends.get(tp));
        consumer.assign(open);
        open.forEach(tp -> consumer.seek(tp, from.get(tp)));
        Map<TopicPartition, Integer> read = new HashMap<>();
        long deadline = System.nanoTime() + wait.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (!open.contains(tp)) {
                    continue;
                }
                if (id.equals(header(r))) {
                    return Optional.of(r);
                }
                int n = read.merge(tp, 1, Integer::sum);
                if (pastIt.test(r) || n >= MAX_RECORDS || r.offset() + 1 >= ends.get(tp)) {
                    open.remove(tp);
                    consumer.pause(List.of(tp));
                }
            }
        }
        return Optional.empty();
    }

    private static String header(ConsumerRecord<byte[], byte[]> r) {
        Header h = r.headers().lastHeader(HookRecords.ID);
        return h == null || h.value() == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The UUIDv7 this string names (any case), else null. */
    static UUID parse(String id) {
        if (id == null || id.length() != 36) {
            return null;
        }
        try {
            UUID u = UUID.fromString(id);
            return u.version() == 7 && u.variant() == 2 ? u : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}

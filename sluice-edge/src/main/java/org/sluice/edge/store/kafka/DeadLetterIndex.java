package org.sluice.edge.store.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;

/**
 * Every dead letter of the fleet, as this node reads them from the dead-letter topic
 * ({@code <prefix>.dead}, written by {@link DeadLetters}): an index in memory, without the
 * bodies (a redelivery reads its record by offset).
 *
 * <h2>Reading</h2>
 * One thread ({@code sluice-dead-letters}) assigns itself every partition of the topic (no
 * group: every node reads all of it), reads from the beginning, then follows it. A record
 * puts its key ({@code <hook id>/<destination>}) in the index, a tombstone (a redelivery)
 * removes it; the last record of a key wins, as compaction keeps it. A record that is not a
 * dead letter is logged and passed over. Until the thread has reached the end offsets it
 * found when it assigned the partitions, {@link #caughtUp()} is false (the listing answers
 * 503 rather than a part). Partitions are the ones the topic had then (the topic is made
 * with its final count).
 *
 * <h2>Bound</h2>
 * At most {@code maxEntries} dead letters ({@link #DEFAULT_MAX_ENTRIES}, about 250 bytes
 * each: some 25 MB). Past it the entries of the oldest hooks (lowest ids) leave the index
 * and are counted ({@link #unindexed()}); they stay on the topic until its retention. Every
 * minute entries older than the topic's retention (by record time, the time of death) leave.
 *
 * <p>Thread-safe: the index is guarded by this object; the consumer is the thread's.
 */
final class DeadLetterIndex implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterIndex.class);
    /** Dead letters kept unless told otherwise. */
    static final int DEFAULT_MAX_ENTRIES = 100_000;
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long PURGE_EVERY_MS = 60_000;

    /**
     * One dead delivery as listed; {@code partition} and {@code offset} locate its record (with the hook).
     * {@code lastError} is null on a record written before it carried {@value DeadLetters#LAST_ERROR}.
     */
    record Entry(String hookId, String destination, String reason, int attempts, Integer lastStatus,
                 String lastError, Long deadAtMillis, long timestamp, int partition, long offset) {

        DeliveryRow row() {
            long at = deadAtMillis == null ? timestamp : deadAtMillis;
            return new DeliveryRow(hookId, destination, DeliveryState.DEAD, attempts, at, at, at, lastStatus, lastError,
                    null, reason, deadAtMillis);
        }
    }

    private final String topic;
    private final int maxEntries;
    private final long retentionMs;
    private final LongSupplier wallMillis;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final CountDownLatch caught = new CountDownLatch(1);
    private volatile boolean running = true;

    /** By {@code <hook id>/<destination>}: hook id order, then destination. */
    @GuardedBy("this")
    private final TreeMap<String, Entry> entries = new TreeMap<>();
    @GuardedBy("this")
    private final Map<String, Long> perDestination = new HashMap<>();
    @GuardedBy("this")
    private long unindexed;

    /** Starts reading {@code topic} with a consumer from {@code consumers} (closed by {@link #close}). */
    DeadLetterIndex(String topic, Supplier<KafkaConsumer<byte[], byte[]>> consumers, int maxEntries, long retentionMs,
                    LongSupplier wallMillis) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("the dead-letter index must hold at least 1 entry, got " + maxEntries);
        }
        this.topic = topic;
        this.maxEntries = maxEntries;
        this.retentionMs = retentionMs;
        this.wallMillis = wallMillis;
        this.consumer = consumers.get();
        this.thread = new Thread(this::run, "sluice-dead-letters");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Waits at most {@code millis} for the first read to the end; true when it got there. */
    boolean awaitCaughtUp(long millis) throws InterruptedException {
        return caught.await(millis, TimeUnit.MILLISECONDS);
    }

    /** True once the topic was read to the end offsets found at the start. */
    boolean caughtUp() {
        return caught.getCount() == 0;
    }

    // ================================================================ reads

    /** One page in key order after hook {@code afterId} (canonical; null: from the first). */
    synchronized DeadLetterPage page(String destination, String afterId, int limit) {
        Map<String, Entry> from = afterId == null ? entries : entries.tailMap(afterId + '0', true);
        List<DeliveryRow> rows = new ArrayList<>(Math.min(limit, 64));
        String last = null;
        for (Entry e : from.values()) {
            if (destination != null && !destination.equals(e.destination())) {
                continue;
            }
            if (rows.size() >= limit && !e.hookId().equals(last)) {
                return new DeadLetterPage(rows, last); // more exist after the page
            }
            rows.add(e.row());
            last = e.hookId();
        }
        return new DeadLetterPage(rows, null);
    }

    /** The entries of one hook (canonical id). */
    synchronized List<Entry> of(String hookId) {
        return new ArrayList<>(entries.subMap(hookId + '/', hookId + '0').values());
    }

    /**
     * The hook ids with a dead letter to {@code destination} whose ids' UUIDv7 milliseconds
     * fall in {@code [fromMillis, toMillis)}, in id order. A canonical UUIDv7 starts with its
     * millisecond in hex ({@code xxxxxxxx-xxxx}), so the range is one slice of the keys.
     */
    synchronized List<String> hooksDeadIn(String destination, long fromMillis, long toMillis) {
        List<String> ids = new ArrayList<>();
        for (Entry e : entries.subMap(timePrefix(fromMillis), true, timePrefix(toMillis), false).values()) {
            if (destination.equals(e.destination())) {
                ids.add(e.hookId());
            }
        }
        return ids;
    }

    /** True while the hook {@code hookId} (canonical) has a dead letter to {@code destination} indexed. */
    synchronized boolean isDead(String hookId, String destination) {
        return entries.containsKey(hookId + '/' + destination);
    }

    /** The first 48 bits of a UUIDv7 of millisecond {@code millis}, as its canonical text starts. */
    static String timePrefix(long millis) {
        String hex = String.format("%012x", millis);
        return hex.substring(0, 8) + '-' + hex.substring(8);
    }

    synchronized long count(String destination) {
        return perDestination.getOrDefault(destination, 0L);
    }

    synchronized int size() {
        return entries.size();
    }

    /** Entries that left the index at its bound since start. */
    synchronized long unindexed() {
        return unindexed;
    }

    /** Removes an entry at once (its tombstone was acknowledged; the thread will read it too). */
    synchronized void remove(String hookId, String destination) {
        drop(hookId + '/' + destination);
    }

    // ================================================================ the thread

    private void run() {
        Map<TopicPartition, Long> ends = null;
        long lastPurge = wallMillis.getAsLong();
        while (running) {
            try {
                if (ends == null) {
                    ends = assign();
                    if (ends == null) {
                        Thread.sleep(POLL.toMillis()); // the topic is not there yet
                        continue;
                    }
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    apply(r);
                }
                if (!caughtUp() && ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                    caught.countDown();
                    LOG.info("dead-letter index: {} read to its end, {} dead letters", topic, size());
                }
                long now = wallMillis.getAsLong();
                if (now - lastPurge >= PURGE_EVERY_MS) {
                    lastPurge = now;
                    purge(now - retentionMs);
                }
            } catch (WakeupException e) {
                // close() woke the poll: the loop's condition decides
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (KafkaException e) {
                LOG.warn("reading the dead-letter topic {} failed: {}; trying again", topic, e.toString());
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        try {
            consumer.close(Duration.ofSeconds(1));
        } catch (RuntimeException e) {
            LOG.warn("closing the dead-letter index's consumer failed: {}", e.toString());
        }
    }

    /** Assigns every partition from the beginning and returns their end offsets, or null while the topic is missing. */
    private Map<TopicPartition, Long> assign() {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
        if (infos == null || infos.isEmpty()) {
            return null;
        }
        List<TopicPartition> parts = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
        return consumer.endOffsets(parts);
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) { // a tombstone: redelivered
            if (r.key() != null) {
                synchronized (this) {
                    drop(new String(r.key(), StandardCharsets.UTF_8));
                }
            }
            return;
        }
        Entry e;
        try {
            e = entry(r);
        } catch (IllegalArgumentException bad) {
            LOG.warn("record {}-{}@{} is not a dead letter, passed over: {}", r.topic(), r.partition(), r.offset(),
                    bad.getMessage());
            return;
        }
        synchronized (this) {
            if (entries.put(e.hookId() + '/' + e.destination(), e) == null) {
                perDestination.merge(e.destination(), 1L, Long::sum);
            }
            while (entries.size() > maxEntries) {
                Entry oldest = entries.pollFirstEntry().getValue();
                perDestination.merge(oldest.destination(), -1L, Long::sum);
                unindexed++;
            }
        }
    }

    @GuardedBy("this")
    private void drop(String key) {
        Entry gone = entries.remove(key);
        if (gone != null) {
            perDestination.merge(gone.destination(), -1L, Long::sum);
        }
    }

    private synchronized void purge(long before) {
        List<String> old = new ArrayList<>();
        entries.forEach((k, e) -> {
            if (e.timestamp() < before) {
                old.add(k);
            }
        });
        old.forEach(this::drop);
    }

    /** The entry a dead letter's record makes; an {@link IllegalArgumentException} when it is not one. */
    static Entry entry(ConsumerRecord<byte[], byte[]> r) {
        String id = header(r, HookRecords.ID);
        String destination = header(r, HookRecords.DESTINATION);
        if (id == null || destination == null) {
            throw new IllegalArgumentException(HookRecords.ID + " and " + HookRecords.DESTINATION + " are required");
        }
        String reason = header(r, DeadLetters.REASON);
        String attempts = header(r, DeadLetters.ATTEMPTS);
        String deadAt = header(r, DeadLetters.DEAD_AT);
        String status = header(r, DeadLetters.LAST_STATUS);
        String error = header(r, DeadLetters.LAST_ERROR);
        return new Entry(id, destination, reason == null || reason.isEmpty() ? null : reason,
                attempts == null ? 0 : Integer.parseInt(attempts), blank(status) ? null : Integer.valueOf(status),
                blank(error) ? null : error, blank(deadAt) ? null : Long.valueOf(deadAt), r.timestamp(), r.partition(), r.offset());
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    /** The first value of header {@code name}, or null. */
    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        java.util.Iterator<Header> all = r.headers().headers(name).iterator(); // one dead delivery a record
        if (!all.hasNext()) {
            return null;
        }
        Header h = all.next();
        return h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** Stops the thread and closes the consumer; idempotent. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

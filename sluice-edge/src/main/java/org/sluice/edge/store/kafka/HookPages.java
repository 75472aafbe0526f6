package org.sluice.edge.store.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.StoredHook;

/**
 * {@code GET /v1/hooks} on the hooks topic, for the whole fleet: pages of hooks ordered by
 * id, read from every partition with no index of their own (docs/fleet-log.md, "Listing
 * hooks").
 *
 * <h2>Order and cursor</h2>
 * A hook's id is a UUIDv7 and its record's timestamp is the id's millisecond
 * ({@link HookRecords}), so ordering by id is ordering by (time, id): the merge of the
 * partitions by time. The cursor is a hook id, as on RocksDB: stable (an id never changes)
 * and found again with {@code offsetsForTimes} at its millisecond, which gives in each
 * partition the first offset stamped at or after it; every record stamped later is at or
 * after that offset.
 *
 * <h2>Out of order by at most {@code slack}</h2>
 * Within a partition, timestamps are not sorted: two nodes' clocks differ (at most
 * {@link HookFinder#SKEW_MS}, the allowance of the id lookup) and a hook is acknowledged up
 * to {@code timeout_ms} after its id was made. A record is therefore stamped at least
 * {@code slack} = {@code SKEW_MS + timeout_ms} before any record at a later offset of its
 * partition. A partition is read forward until a record stamped more than {@code slack}
 * past the page's last id: nothing after it can belong to the page.
 *
 * <h2>Oldest first: settled hooks only</h2>
 * A hook whose id is older than a page's last id can still reach the log after that page
 * was read (its acknowledgement was on its way, or its node's clock is behind). So that
 * paging with {@code next} returns every hook exactly once, the oldest-first listing shows
 * only hooks stamped at least {@code slack} before now (settled): no hook reaches the log
 * later with an id that old. The listing lags the newest hooks by {@code slack}.
 *
 * <h2>Newest first</h2>
 * Read in windows backwards from the cursor (or now): the window is read forward, and if it
 * holds fewer than {@code limit} hooks the next one, eight times longer, is read before it,
 * down to {@code retention.hooks_seconds}. Newest first shows every hook up to now.
 *
 * <h2>Bounds</h2>
 * A page keeps at most {@code limit + 1} hooks without their bodies in memory (an
 * oldest-first page reads the bodies of its hooks in a second pass, up to its byte bound);
 * it reads at most {@value #MAX_RECORDS} records a partition and for at most three times
 * {@code timeout_ms}. A partition cut off by the record bound shortens the page to the hooks
 * it cannot change; should none remain (or the time run out), the page is refused with a
 * {@link HookStoreException} ({@code 503 store_unavailable}).
 *
 * <p>Thread-safe: each page uses its own consumer (admin reads are rare).
 */
final class HookPages {

    /** The most records read per partition for one page. */
    static final int MAX_RECORDS = 50_000;
    /** The first window of a newest-first page, in ms. */
    static final long FIRST_WINDOW_MS = 2_000;

    private static final Comparator<Seen> BY_ID = Comparator.comparing(Seen::id);

    private final LogAccess log;
    private final long slackMs;

    HookPages(LogAccess log) {
        this.log = log;
        this.slackMs = HookFinder.SKEW_MS + log.settings().timeoutMs();
    }

    /** How long a hook takes to settle (be listed oldest first), in ms. */
    long slackMs() {
        return slackMs;
    }

    /** A hook read in the first pass: its id, stamp and place, its summary. */
    private record Seen(String id, long millis, TopicPartition partition, long offset, HookSummary summary) {}

    /** Takes a record read; false once its partition holds nothing more for the page. */
    @FunctionalInterface
    private interface Sink {
        boolean take(ConsumerRecord<byte[], byte[]> record);
    }

    // ================================================================ oldest first

    /** See {@link org.sluice.edge.store.HookLog#after(String, int, long)}; only settled hooks. */
    HookPage after(String afterId, int limit, long maxBytes) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        long now = log.now();
        long oldest = now - log.settings().hooksRetentionMs();
        long settled = now - slackMs;
        String after = cursor(afterId, oldest);
        long afterMs = millisOf(after, oldest);
        try (KafkaConsumer<byte[], byte[]> consumer = log.clients().consumer()) {
            Duration wait = Duration.ofMillis(log.settings().timeoutMs());
            Map<TopicPartition, Long> ends = ends(consumer, wait);
            Map<TopicPartition, Long> starts = startsAt(consumer, afterMs, ends, wait);
            PriorityQueue<Seen> best = new PriorityQueue<>(BY_ID.reversed()); // the largest on top
            boolean[] foundAfter = {false};
            Map<TopicPartition, Long> cut = scan(consumer, starts, ends, deadline(), r -> {
                String id = id(r);
                if (after != null && after.equals(id)) {
                    foundAfter[0] = true;
                }
                long ts = r.timestamp();
                if (id != null && ts <= settled && ts >= oldest && (after == null || id.compareTo(after) > 0)
                        && (best.size() <= limit || id.compareTo(best.peek().id()) < 0)) {
                    Seen seen = seen(r, id);
                    if (seen != null) {
                        best.add(seen);
                        if (best.size() > limit + 1) {
                            best.poll();
                        }
                    }
                }
                long bound = best.size() > limit ? Math.min(settled, best.peek().millis()) : settled;
                return ts <= Math.max(bound, afterMs) + slackMs;
            });
            checkFound(after, foundAfter[0], cut);
            List<Seen> sorted = new ArrayList<>(best);
            sorted.sort(BY_ID);
            boolean more = sorted.size() > limit || !cut.isEmpty();
            sorted = exact(sorted, cut);
            if (sorted.size() > limit) {
                sorted = sorted.subList(0, limit);
            }
            int n = 0;
            long bytes = 0;
            while (n < sorted.size() && (n == 0 || bytes + sorted.get(n).summary().bodyBytes() <= maxBytes)) {
                bytes += sorted.get(n).summary().bodyBytes();
                n++;
            }
            more |= n < sorted.size();
            List<StoredHook> hooks = bodies(consumer, sorted.subList(0, n));
            String next = more && !hooks.isEmpty() ? hooks.get(hooks.size() - 1).id() : null;
            return new HookPage(hooks, next);
        } catch (KafkaException e) {
            throw unreadable(e);
        }
    }

    /** The hooks of {@code page} with their bodies, read again at their offsets; one gone since is left out. */
    private List<StoredHook> bodies(KafkaConsumer<byte[], byte[]> consumer, List<Seen> page) {
        Map<TopicPartition, Long> from = new HashMap<>();
        Map<TopicPartition, Long> until = new HashMap<>();
        for (Seen s : page) {
            from.merge(s.partition(), s.offset(), Math::min);
            until.merge(s.partition(), s.offset() + 1, Math::max);
        }
        Map<String, StoredHook> read = new HashMap<>();
        Map<TopicPartition, Set<Long>> offsets = new HashMap<>();
        for (Seen s : page) {
            offsets.computeIfAbsent(s.partition(), p -> new HashSet<>()).add(s.offset());
        }
        scan(consumer, from, until, deadline(), r -> {
            if (offsets.getOrDefault(new TopicPartition(r.topic(), r.partition()), Set.of()).contains(r.offset())) {
                try {
                    StoredHook h = HookRecords.read(r).hook();
                    read.put(h.id(), h);
                } catch (IllegalArgumentException unreadable) {
                    // it was readable in the first pass; a record is never rewritten
                }
            }
            return true;
        });
        List<StoredHook> out = new ArrayList<>(page.size());
        for (Seen s : page) {
            StoredHook h = read.get(s.id());
            if (h != null) {
                out.add(h);
            }
        }
        return out;
    }

    // ================================================================ newest first

    /** See {@link org.sluice.edge.store.HookLog#newest(String, int)}. */
    HookSummary.Page newest(String beforeId, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        long now = log.now();
        long oldest = now - log.settings().hooksRetentionMs();
        String before = cursor(beforeId, oldest);
        long topMs = millisOf(before, now);
        try (KafkaConsumer<byte[], byte[]> consumer = log.clients().consumer()) {
            Duration wait = Duration.ofMillis(log.settings().timeoutMs());
            Map<TopicPartition, Long> ends = ends(consumer, wait);
            PriorityQueue<Seen> best = new PriorityQueue<>(BY_ID); // the smallest on top
            boolean[] foundBefore = {false};
            long deadline = deadline();
            Map<TopicPartition, Long> upper = new HashMap<>(ends);
            Map<TopicPartition, Integer> budget = new HashMap<>();
            long window = FIRST_WINDOW_MS;
            long covered = Long.MAX_VALUE; // every record stamped at or after this has been read
            boolean first = true;
            Map<TopicPartition, Long> cut = Map.of();
            while (true) {
                long from = Math.max(oldest, topMs - window);
                Map<TopicPartition, Long> starts = startsAt(consumer, from, upper, wait);
                boolean stopAtTop = first && before != null;
                cut = scan(consumer, starts, upper, deadline, budget, r -> {
                    String id = id(r);
                    if (before != null && before.equals(id)) {
                        foundBefore[0] = true;
                    }
                    long ts = r.timestamp();
                    if (id != null && ts >= oldest && (before == null || id.compareTo(before) < 0)
                            && (best.size() <= limit || id.compareTo(best.peek().id()) > 0)) {
                        Seen seen = seen(r, id);
                        if (seen != null) {
                            best.add(seen);
                            if (best.size() > limit + 1) {
                                best.poll();
                            }
                        }
                    }
                    return !stopAtTop || ts <= topMs + slackMs;
                });
                if (first) {
                    checkFound(before, foundBefore[0], cut);
                }
                if (!cut.isEmpty()) {
                    break; // the exact part is what the previous windows covered
                }
                covered = from;
                upper.putAll(starts);
                first = false;
                long exact = best.stream().filter(s -> s.millis() >= from).count();
                if (exact > limit || from <= oldest) {
                    break;
                }
                window = Math.min(window * 8, Long.MAX_VALUE / 16);
            }
            List<Seen> sorted = new ArrayList<>(best);
            sorted.sort(BY_ID.reversed());
            long exactFrom = cut.isEmpty() && covered <= oldest ? Long.MIN_VALUE : covered;
            List<Seen> page = new ArrayList<>();
            for (Seen s : sorted) {
                if (s.millis() >= exactFrom && page.size() < limit) {
                    page.add(s);
                }
            }
            if (page.isEmpty() && exactFrom != Long.MIN_VALUE && !sorted.isEmpty()) {
                throw new HookStoreException("cannot list hooks before " + (before == null ? "now" : before)
                        + " on the log (" + log.settings().location() + "): more than " + MAX_RECORDS
                        + " records of a partition to read for one page");
            }
            boolean more = sorted.size() > page.size();
            List<HookSummary> hooks = page.stream().map(Seen::summary).toList();
            return new HookSummary.Page(hooks, more ? page.get(page.size() - 1).id() : null);
        } catch (KafkaException e) {
            throw unreadable(e);
        }
    }

    // ================================================================ reading

    /** The canonical form of a cursor, null for none; a cursor that names no hook still retained is refused. */
    private static String cursor(String id, long oldestMillis) {
        if (id == null) {
            return null;
        }
        UUID u = HookFinder.parse(id);
        if (u == null || HookRecords.idMillis(u) < oldestMillis) {
            throw new IllegalArgumentException("no stored hook has id " + id);
        }
        return u.toString();
    }

    /** The millisecond of a cursor's id; {@code none} for no cursor. */
    private static long millisOf(String cursor, long none) {
        return cursor == null ? none : HookRecords.idMillis(UUID.fromString(cursor));
    }

    /** The cursor must be on the log; not found by a read cut short, the page cannot say. */
    private void checkFound(String cursor, boolean found, Map<TopicPartition, Long> cut) {
        if (cursor == null || found) {
            return;
        }
        if (!cut.isEmpty()) {
            throw new HookStoreException("cannot find hook " + cursor + " on the log (" + log.settings().location()
                    + ") within " + MAX_RECORDS + " records a partition");
        }
        throw new IllegalArgumentException("no stored hook has id " + cursor);
    }

    /**
     * The prefix (oldest first) of {@code sorted} that no record after a cut can
     * change: those stamped more than {@code slack} before the last record read of every
     * partition cut short.
     */
    private List<Seen> exact(List<Seen> sorted, Map<TopicPartition, Long> cut) {
        if (cut.isEmpty()) {
            return sorted;
        }
        long safe = cut.values().stream().mapToLong(Long::longValue).min().orElseThrow() - slackMs;
        List<Seen> out = new ArrayList<>();
        for (Seen s : sorted) {
            if (s.millis() < safe) {
                out.add(s);
            }
        }
        if (out.isEmpty() && !sorted.isEmpty()) {
            throw new HookStoreException("cannot list hooks on the log (" + log.settings().location() + "): more than "
                    + MAX_RECORDS + " records of a partition within " + slackMs + " ms of the cursor");
        }
        return out;
    }

    /** Every partition of the hooks topic with its end offset (none when the topic has no partition yet). */
    private Map<TopicPartition, Long> ends(KafkaConsumer<byte[], byte[]> consumer, Duration wait) {
        List<PartitionInfo> infos = consumer.partitionsFor(log.settings().hooksTopic(), wait);
        List<TopicPartition> parts = new ArrayList<>();
        if (infos != null) {
            for (PartitionInfo i : infos) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
        }
        return parts.isEmpty() ? Map.of() : consumer.endOffsets(parts, wait);
    }

    /**
     * Per partition of {@code ends}, the first offset stamped at or after {@code millis}, or
     * its offset in {@code ends} where none is.
     */
    private static Map<TopicPartition, Long> startsAt(KafkaConsumer<byte[], byte[]> consumer, long millis,
                                                      Map<TopicPartition, Long> ends, Duration wait) {
        Map<TopicPartition, Long> query = new HashMap<>();
        ends.keySet().forEach(tp -> query.put(tp, Math.max(0, millis)));
        Map<TopicPartition, OffsetAndTimestamp> found = query.isEmpty() ? Map.of() : consumer.offsetsForTimes(query, wait);
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (TopicPartition tp : ends.keySet()) {
            OffsetAndTimestamp o = found.get(tp);
            long end = ends.getOrDefault(tp, 0L);
            starts.put(tp, o == null ? end : Math.min(o.offset(), end));
        }
        return starts;
    }

    private Map<TopicPartition, Long> scan(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> from,
                                           Map<TopicPartition, Long> until, long deadline, Sink sink) {
        return scan(consumer, from, until, deadline, new HashMap<>(), sink);
    }

    /**
     * Reads each partition of {@code from} forward from its offset to its offset in
     * {@code until} (exclusive), handing every record to {@code sink} until it answers false.
     * Returns the partitions whose {@code budget} (records read, counted across calls) ran out
     * first, each with the timestamp of its last record read.
     *
     * @throws HookStoreException when the reading outlasts {@code deadline} ({@link System#nanoTime})
     */
    private Map<TopicPartition, Long> scan(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> from,
                                           Map<TopicPartition, Long> until, long deadline,
                                           Map<TopicPartition, Integer> budget, Sink sink) {
        Set<TopicPartition> open = new HashSet<>();
        from.forEach((tp, offset) -> {
            if (offset < until.getOrDefault(tp, 0L) && budget.getOrDefault(tp, 0) < MAX_RECORDS) {
                open.add(tp);
            }
        });
        Map<TopicPartition, Long> cut = new HashMap<>();
        consumer.assign(open);
        open.forEach(tp -> consumer.seek(tp, from.get(tp)));
        consumer.resume(open);
        while (!open.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new HookStoreException("reading a page of hooks from the log (" + log.settings().location()
                        + ") took longer than " + 3 * log.settings().timeoutMs() + " ms");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (!open.contains(tp)) {
                    continue;
                }
                if (r.offset() >= until.get(tp) || !sink.take(r)) {
                    open.remove(tp);
                    continue;
                }
                if (budget.merge(tp, 1, Integer::sum) >= MAX_RECORDS && r.offset() + 1 < until.get(tp)) {
                    cut.put(tp, r.timestamp());
                    open.remove(tp);
                }
            }
            open.removeIf(tp -> consumer.position(tp) >= until.get(tp)); // past the end, control records included
            consumer.pause(consumer.assignment().stream().filter(tp -> !open.contains(tp)).toList());
        }
        return cut;
    }

    private long deadline() {
        return System.nanoTime() + Duration.ofMillis(3 * log.settings().timeoutMs()).toNanos();
    }

    /** The record's hook without its body, or null for a record that is no hook (passed over). */
    private static Seen seen(ConsumerRecord<byte[], byte[]> r, String id) {
        try {
            StoredHook h = HookRecords.read(r).hook();
            if (HookFinder.parse(id) == null) {
                return null;
            }
            return new Seen(id, r.timestamp(), new TopicPartition(r.topic(), r.partition()), r.offset(),
                    HookSummary.of(h));
        } catch (IllegalArgumentException notAHook) {
            return null;
        }
    }

    private static String id(ConsumerRecord<byte[], byte[]> r) {
        Header h = r.headers().lastHeader(HookRecords.ID);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private HookStoreException unreadable(KafkaException e) {
        return new HookStoreException("cannot list hooks on the log (" + log.settings().location() + "): " + e.getMessage(),
                e);
    }
}

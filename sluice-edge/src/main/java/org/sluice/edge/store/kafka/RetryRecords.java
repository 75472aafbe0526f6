package org.sluice.edge.store.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;

/**
 * How a hook waiting for a distant retry is written on the retry topic ({@code <prefix>.retry}),
 * so that it stops holding its hooks partition's committed offset: a {@link HookRecords}
 * record of the whole hook (same key, value and headers; stamped when written) naming only the
 * destinations still pending, plus, for each of them in the same order, a
 * {@value #ATTEMPTS} header (attempts made, decimal) and a {@value #DUE} header (when the
 * next attempt is due, epoch ms, decimal). A record without them, or with them malformed,
 * starts its deliveries over (attempt 1, due at once): at least once still holds.
 *
 * <p>A record carried forward in order ({@link OrderedCarry}) also has a {@value #POSITION}
 * header: the offset of the hook's record on its hooks partition, its place in its key's
 * order (-1 when not known: a hook that is not ordered). Its presence says the record is a
 * copy of a hook the writer held, never a redelivery.
 *
 * <p>Stateless and thread-safe.
 */
final class RetryRecords {

    static final String ATTEMPTS = "sluice-attempts";
    static final String DUE = "sluice-due";
    static final String POSITION = "sluice-position";

    private RetryRecords() {
    }

    /**
     * The retry record of {@code hook} on {@code topic}, carrying its {@code pending} rows (one
     * per destination), stamped {@code stampMillis}: the time it is written, not the hook's id
     * millisecond as on the hooks topic, so that the retry topic's retention counts from the
     * write (a hook older than {@code retention.hooks_seconds} moved, carried forward or
     * redelivered here is not deleted at once).
     */
    static ProducerRecord<byte[], byte[]> record(String topic, StoredHook hook, List<DeliveryRow> pending, long stampMillis) {
        ProducerRecord<byte[], byte[]> h = hookRecord(topic, hook, pending);
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, stampMillis, h.key(), h.value(), h.headers());
        for (DeliveryRow row : pending) {
            r.headers().add(ATTEMPTS, utf8(Integer.toString(row.attempts())));
            r.headers().add(DUE, utf8(Long.toString(row.nextAttemptAtMillis())));
        }
        return r;
    }

    /**
     * As {@link #record}, the copy of a held hook carried forward in order: to partition
     * {@code partition} of {@code topic} (not by key: the partition the carrying node reads),
     * with the {@value #POSITION} header.
     */
    static ProducerRecord<byte[], byte[]> carried(String topic, int partition, StoredHook hook, List<DeliveryRow> pending,
                                                  long stampMillis, long position) {
        ProducerRecord<byte[], byte[]> r = record(topic, hook, pending, stampMillis);
        ProducerRecord<byte[], byte[]> c = new ProducerRecord<>(topic, partition, stampMillis, r.key(), r.value(), r.headers());
        c.headers().add(POSITION, utf8(Long.toString(position)));
        return c;
    }

    /**
     * The {@value #POSITION} of a carried record: its hook's place in its key's order, -1 when
     * unknown or malformed, and {@link Long#MIN_VALUE} when the record is not a carried copy.
     */
    static long position(ConsumerRecord<byte[], byte[]> record) {
        Header h = record.headers().lastHeader(POSITION);
        if (h == null) {
            return Long.MIN_VALUE;
        }
        try {
            return Math.max(-1, Long.parseLong(h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8)));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The {@link HookRecords} record of {@code hook} on {@code topic}, naming the destinations of {@code rows} only. */
    static ProducerRecord<byte[], byte[]> hookRecord(String topic, StoredHook hook, List<DeliveryRow> rows) {
        List<String> destinations = new ArrayList<>(rows.size());
        rows.forEach(r -> destinations.add(r.destination()));
        PendingHook h = PendingHook.of(hook, destinations);
        return HookRecords.record(topic, UUID.fromString(hook.id()), h);
    }

    /**
     * Where each destination of a record's hook stands ({@code destinations}, as
     * {@link HookRecords#read} gave them), or an empty map when the record carries nothing
     * usable (a hooks topic record, or headers that do not pair with the destinations).
     */
    static Map<String, WorkingSet.Carried> carried(ConsumerRecord<byte[], byte[]> record, List<String> destinations) {
        List<String> attempts = values(record, ATTEMPTS);
        List<String> due = values(record, DUE);
        if (attempts.size() != destinations.size() || due.size() != destinations.size()) {
            return Map.of();
        }
        Map<String, WorkingSet.Carried> out = new HashMap<>();
        try {
            for (int i = 0; i < destinations.size(); i++) {
                out.put(destinations.get(i), new WorkingSet.Carried(Integer.parseInt(attempts.get(i)), Long.parseLong(due.get(i))));
            }
        } catch (IllegalArgumentException e) { // a number malformed or negative: start over
            return Map.of();
        }
        return out;
    }

    private static List<String> values(ConsumerRecord<byte[], byte[]> record, String name) {
        List<String> out = new ArrayList<>(2);
        for (Header h : record.headers().headers(name)) {
            out.add(h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

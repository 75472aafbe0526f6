package org.sluice.edge.store.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

/**
 * How one accepted hook is written on the hooks topic, and read back: the one record format
 * of the fleet's log (docs/fleet-log.md).
 *
 * <ul>
 *   <li><b>key</b>: the UTF-8 of {@code tenant}, a NUL byte, {@code source}: all hooks of one
 *       (tenant, source) land in one partition, in acceptance order.</li>
 *   <li><b>value</b>: the body, as received.</li>
 *   <li><b>timestamp</b>: the millisecond of the hook's UUIDv7 id (the producer's CreateTime),
 *       so that the log's time index finds a hook by its id.</li>
 *   <li><b>headers</b>: {@value #ID}, {@value #TENANT}, {@value #SOURCE},
 *       {@value #RECEIVED} (epoch milliseconds, decimal), {@value #DEDUPE} when the hook has a
 *       dedupe key, one {@value #DESTINATION} per destination in {@code deliver_to} order, then
 *       each request header in arrival order as {@value #REQUEST_HEADER_PREFIX}{@code name}, then
 *       {@value #TRACEPARENT} when the hook was ingested under a trace (a record without it, as
 *       every record written before it was kept, reads with none).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class HookRecords {

    public static final String ID = "sluice-id";
    public static final String TENANT = "sluice-tenant";
    public static final String SOURCE = "sluice-source";
    public static final String RECEIVED = "sluice-received";
    public static final String DEDUPE = "sluice-dedupe";
    public static final String DESTINATION = "sluice-destination";
    public static final String REQUEST_HEADER_PREFIX = "h:";
    /** The W3C {@code traceparent} of the span the hook was ingested under. */
    public static final String TRACEPARENT = "sluice-traceparent";

    private HookRecords() {
    }

    /** A hook read back from the log: the stored hook and the destinations it was accepted for. */
    public record LoggedHook(StoredHook hook, List<String> destinations) {
        public LoggedHook {
            Objects.requireNonNull(hook, "hook");
            destinations = List.copyOf(destinations);
        }
    }

    /** The record key of every hook of ({@code tenant}, {@code source}). */
    public static byte[] key(String tenant, String source) {
        return (tenant + '\0' + source).getBytes(StandardCharsets.UTF_8);
    }

    /** The millisecond a UUIDv7 id was made in: its top 48 bits. */
    public static long idMillis(UUID id) {
        return id.getMostSignificantBits() >>> 16;
    }

    /** The record that logs {@code hook} under {@code id} (a UUIDv7) on {@code topic}. */
    public static ProducerRecord<byte[], byte[]> record(String topic, UUID id, PendingHook hook) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(ID, utf8(id.toString()));
        headers.add(TENANT, utf8(hook.tenant()));
        headers.add(SOURCE, utf8(hook.source()));
        headers.add(RECEIVED, utf8(Long.toString(hook.receivedAtMillis())));
        if (hook.dedupeKey() != null) {
            headers.add(DEDUPE, utf8(hook.dedupeKey()));
        }
        for (String destination : hook.destinations()) {
            headers.add(DESTINATION, utf8(destination));
        }
        hook.headers().forEach((name, value) -> headers.add(REQUEST_HEADER_PREFIX + name, utf8(value)));
        if (hook.traceparent() != null) {
            headers.add(TRACEPARENT, utf8(hook.traceparent()));
        }
        return new ProducerRecord<>(topic, null, idMillis(id), key(hook.tenant(), hook.source()), hook.body(), headers);
    }

    /**
     * The hook a record of the hooks topic holds.
     *
     * @throws IllegalArgumentException when the record is not one {@link #record} wrote
     *                                  (a header missing or malformed)
     */
    public static LoggedHook read(ConsumerRecord<byte[], byte[]> record) {
        String id = null;
        String tenant = null;
        String source = null;
        String dedupe = null;
        String traceparent = null;
        long received = -1;
        List<String> destinations = new ArrayList<>(2);
        List<String> fields = new ArrayList<>();
        for (Header h : record.headers()) {
            String name = h.key();
            String value = h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
            if (name.startsWith(REQUEST_HEADER_PREFIX)) {
                fields.add(name.substring(REQUEST_HEADER_PREFIX.length()));
                fields.add(value);
                continue;
            }
            switch (name) {
                case ID -> id = value;
                case TENANT -> tenant = value;
                case SOURCE -> source = value;
                case DEDUPE -> dedupe = value;
                case DESTINATION -> destinations.add(value);
                case TRACEPARENT -> traceparent = value;
                case RECEIVED -> received = parseMillis(value, record);
                default -> { } // a header a later version added: not ours to refuse
            }
        }
        if (id == null || tenant == null || source == null || received < 0) {
            throw new IllegalArgumentException("record at " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + " is not a hook: " + ID + ", " + TENANT + ", " + SOURCE + " and "
                    + RECEIVED + " are required");
        }
        byte[] body = record.value() == null ? new byte[0] : record.value();
        OrderedHeaders requestHeaders = OrderedHeaders.adopt(fields.toArray(new String[0]), fields.size() / 2);
        return new LoggedHook(new StoredHook(id, tenant, source, dedupe, received, requestHeaders, body, traceparent),
                destinations);
    }

    private static long parseMillis(String value, ConsumerRecord<?, ?> record) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("record at " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + " has " + RECEIVED + " '" + value + "', not a number", e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package org.sluice.edge.store;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A hook that passed admission and waits to be committed.
 *
 * @param tenant           the tenant it belongs to
 * @param source           the source it arrived on
 * @param dedupeKey        its dedupe key, or null when the source has none (then it is never a duplicate)
 * @param receivedAtMillis wall-clock time it was received, epoch milliseconds
 * @param headers          request headers in arrival order, name to value (repeated headers joined by the caller)
 * @param body             the body; the store keeps a reference, so the caller must not modify it afterwards
 * @param destinations     the destinations it is to be delivered to (the source's {@code deliver_to}); the
 *                         commit that accepts it schedules one pending delivery per name. Names are distinct,
 *                         1 to {@value #MAX_DESTINATION_BYTES} bytes of UTF-8; may be empty (nothing to deliver)
 * @param traceparent      the W3C {@code traceparent} of the span that ingested it, kept with the hook so that
 *                         its delivery attempts (later, perhaps on another node) join its trace; null when
 *                         tracing is off
 */
@SuppressWarnings("ArrayRecordComponent") // the body is handed on without a copy; hooks are never compared
public record PendingHook(String tenant, String source, String dedupeKey, long receivedAtMillis,
                          Map<String, String> headers, byte[] body, List<String> destinations, String traceparent) {

    /** Longest destination name the store takes, in UTF-8 bytes. */
    public static final int MAX_DESTINATION_BYTES = 255;

    public PendingHook {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(body, "body");
        headers = headers == null ? Map.of()
                : headers instanceof OrderedHeaders ? headers // immutable already: kept as is
                : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        destinations = checkDestinations(destinations);
    }

    /** A hook without a trace context. */
    public PendingHook(String tenant, String source, String dedupeKey, long receivedAtMillis,
                       Map<String, String> headers, byte[] body, List<String> destinations) {
        this(tenant, source, dedupeKey, receivedAtMillis, headers, body, destinations, null);
    }

    /** A hook delivered nowhere (no destinations). */
    public PendingHook(String tenant, String source, String dedupeKey, long receivedAtMillis,
                       Map<String, String> headers, byte[] body) {
        this(tenant, source, dedupeKey, receivedAtMillis, headers, body, List.of());
    }

    /** This hook with {@code destinations} to deliver to. */
    public PendingHook withDestinations(List<String> destinations) {
        return new PendingHook(tenant, source, dedupeKey, receivedAtMillis, headers, body, destinations, traceparent);
    }

    /** {@code hook}, read back, to be committed again for {@code destinations} (a replay, a follower's copy). */
    public static PendingHook of(StoredHook hook, List<String> destinations) {
        return new PendingHook(hook.tenant(), hook.source(), hook.dedupeKey(), hook.receivedAtMillis(), hook.headers(),
                hook.body(), destinations, hook.traceparent());
    }

    /** This hook as the store reads it back under {@code id}. */
    public StoredHook stored(String id) {
        return new StoredHook(id, tenant, source, dedupeKey, receivedAtMillis, headers, body, traceparent);
    }

    /** What this hook counts against {@code intake.max_queue_bytes}: its body bytes. */
    public long queueBytes() {
        return body.length;
    }

    public static List<String> checkDestinations(List<String> destinations) {
        if (destinations == null || destinations.isEmpty()) {
            return List.of();
        }
        Set<String> seen = new LinkedHashSet<>();
        for (String d : destinations) {
            checkDestination(d);
            if (!seen.add(d)) {
                throw new IllegalArgumentException("destination " + d + " is named twice");
            }
        }
        return List.copyOf(seen);
    }

    public static String checkDestination(String d) {
        Objects.requireNonNull(d, "destination");
        int bytes = d.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 1 || bytes > MAX_DESTINATION_BYTES) {
            throw new IllegalArgumentException("a destination name must be 1 to " + MAX_DESTINATION_BYTES
                    + " bytes of UTF-8, got " + bytes + " bytes");
        }
        return d;
    }
}

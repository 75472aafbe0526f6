package org.sluice.edge.store;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A hook that passed admission and waits to be committed.
 *
 * @param tenant           the tenant it belongs to
 * @param source           the source it arrived on
 * @param dedupeKey        its dedupe key, or null when the source has none (then it is never a duplicate)
 * @param receivedAtMillis wall-clock time it was received, epoch milliseconds
 * @param headers          request headers in arrival order, name to value (repeated headers joined by the caller)
 * @param body             the body; the store keeps a reference, so the caller must not modify it afterwards
 */
@SuppressWarnings("ArrayRecordComponent") // the body is handed on without a copy; hooks are never compared
public record PendingHook(String tenant, String source, String dedupeKey, long receivedAtMillis,
                          Map<String, String> headers, byte[] body) {

    public PendingHook {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(body, "body");
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** What this hook counts against {@code intake.max_queue_bytes}: its body bytes. */
    public long queueBytes() {
        return body.length;
    }
}

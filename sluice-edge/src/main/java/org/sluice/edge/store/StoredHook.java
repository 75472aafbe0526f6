package org.sluice.edge.store;

import java.util.Map;

/**
 * A committed hook as read back from the store.
 *
 * @param id               its UUIDv7, as a lower-case string
 * @param tenant           the tenant it belongs to
 * @param source           the source it arrived on
 * @param dedupeKey        the dedupe key it was committed with, or null
 * @param receivedAtMillis wall-clock time it was received, epoch milliseconds
 * @param headers          request headers in arrival order (unmodifiable)
 * @param body             the body bytes (a fresh array per read)
 * @param traceparent      the W3C {@code traceparent} of the span the hook was ingested under, or null (tracing
 *                         was off, or a record written before it was kept); handed to a transport, that of the
 *                         delivery attempt's span, which the attempt sends on
 */
@SuppressWarnings("ArrayRecordComponent") // a read-back value carried to a response; never compared or hashed
public record StoredHook(String id, String tenant, String source, String dedupeKey, long receivedAtMillis,
                         Map<String, String> headers, byte[] body, String traceparent) {

    /** A hook without a trace context. */
    public StoredHook(String id, String tenant, String source, String dedupeKey, long receivedAtMillis,
                      Map<String, String> headers, byte[] body) {
        this(id, tenant, source, dedupeKey, receivedAtMillis, headers, body, null);
    }

    /** This hook under the trace context {@code traceparent} (null: none). */
    public StoredHook withTraceparent(String traceparent) {
        return new StoredHook(id, tenant, source, dedupeKey, receivedAtMillis, headers, body, traceparent);
    }

    /** This hook with {@code body} instead of its own (a transformation's output). */
    public StoredHook withBody(byte[] body) {
        return new StoredHook(id, tenant, source, dedupeKey, receivedAtMillis, headers, body, traceparent);
    }
}

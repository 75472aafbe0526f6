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
 */
@SuppressWarnings("ArrayRecordComponent") // a read-back value carried to a response; never compared or hashed
public record StoredHook(String id, String tenant, String source, String dedupeKey, long receivedAtMillis,
                         Map<String, String> headers, byte[] body) {
}

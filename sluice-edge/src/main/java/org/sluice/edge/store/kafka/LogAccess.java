package org.sluice.edge.store.kafka;

import java.util.function.LongSupplier;

/**
 * What a reader of the fleet's log works with: the log's settings, the node's clients (their
 * consumers and admin client) and the wall clock that ages hooks against retention. One
 * handle for the log's readers ({@link HookFinder}, {@link HookPages}, {@link GroupLag}),
 * which take all three together.
 *
 * @param settings   the log's settings
 * @param clients    the node's clients of the log
 * @param wallMillis the wall clock, epoch milliseconds
 */
record LogAccess(KafkaLogSettings settings, LogClients clients, LongSupplier wallMillis) {

    /** The wall clock's time now, epoch milliseconds. */
    long now() {
        return wallMillis.getAsLong();
    }
}

package org.sluice.edge.config;

import org.sluice.edge.settings.ConfigWord;

/**
 * {@code http.refused_body}: what the ingest listener does with the body of a request it
 * refuses with {@code 429} before reading it (issue step 2, the address, node and source
 * limits).
 */
public enum RefusedBody implements ConfigWord {
    /**
     * The default: the connection is kept only when nothing of the body is left to read.
     * A body declared with {@code Content-Length} of at most 64 KiB and sent without
     * {@code Expect} is given until the end of the read that brought the headers: if all of
     * it arrived with them (already received, so keeping the connection reads nothing more),
     * it is released unread and the connection stays open; if any byte is still on its
     * way, the connection closes as with {@link #CLOSE}. Bigger, chunked and
     * {@code Expect: 100-continue} bodies close at once.
     */
    CLOSE_IF_INCOMPLETE,
    /**
     * Always close: answer with {@code Connection: close}, then close the connection
     * gracefully (half-close, drain what is already in flight unread, close). No byte of the
     * body is parsed, buffered, verified or charged.
     */
    CLOSE,
    /**
     * Keep the connection open when the body is declared with {@code Content-Length} of at
     * most 64 KiB and sent without {@code Expect}: its bytes are dropped unread as they
     * arrive, however long they take. Any other body still closes, as with {@link #CLOSE}.
     */
    DISCARD;
}

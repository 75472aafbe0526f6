package org.sluice.edge.store;

import java.util.concurrent.CompletableFuture;

/**
 * A destination's direct path for a replay's hooks: the first attempt of each hook's fresh
 * delivery sent at once, with no row in the store, by the delivery side (for a {@code kafka}
 * destination, its own producer and record: docs/fleet-log.md, "Replays", "Streaming"). A
 * replay's source asks {@link #open} once per batch and {@link #send} per hook; a send that
 * fails, and any hook it does not send, goes the ordinary way (a pending delivery in the
 * store, which the dispatcher retries and dead-letters). Made per replay by
 * {@link ReplaySource.Pacing#stream()}; used by that replay's one thread.
 */
public interface ReplayStream {

    /**
     * Whether the destination takes hooks directly now: it is not paused nor disabled, its
     * breaker is closed and the dispatcher runs.
     */
    boolean open();

    /**
     * Sends {@code hook} as the first attempt of a fresh delivery, once the destination's
     * own pace lets it and while fewer than the stream's bound of sends are out (waiting on
     * the caller's thread; {@link #flush} is done before any wait). Null when it sent
     * nothing: the breaker no longer closed, or the thread interrupted; the caller then takes
     * the ordinary way for the hook. The future completes true once the destination
     * acknowledged the hook, false when it did not (an error, a timeout): then the caller
     * must take the ordinary way for it. It never completes exceptionally.
     */
    CompletableFuture<Boolean> send(StoredHook hook);

    /** Starts the sends made since the last flush (one hand-off to the transport's thread). */
    void flush();
}

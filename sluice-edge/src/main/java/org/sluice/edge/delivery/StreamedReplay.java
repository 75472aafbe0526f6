package org.sluice.edge.delivery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.ReplayStream;
import org.sluice.edge.store.StoredHook;

/**
 * One replay's direct path to a {@code kafka} destination ({@link Dispatcher#replayStream}):
 * each hook the replay keeps is sent as the first attempt of a fresh delivery through the
 * destination's own transport (its producer, the record of {@code KafkaTransport.record},
 * attempt 1, the same call a pass makes: {@link Outlet#sendStreamed}), without a row in the
 * ledger. What a pass would ask first, this asks too:
 * <ul>
 *   <li>{@link #open}, once per batch of the replay: not paused, not disabled (the same
 *       {@link DestinationPauses} the pass reads), the breaker closed, the dispatcher not
 *       stopping;</li>
 *   <li>per hook, the destination's own {@link Pacer} ({@link Pacer#tryTakeAtCommit}: the
 *       bucket the passes and the commits take from, so the destination's {@code rate} holds
 *       for all its attempts together), parking for its wait, at most {@link #MAX_PARK_NANOS}
 *       at a time; then the breaker's pass.</li>
 * </ul>
 * <b>Bound:</b> at most {@value #WINDOW} sends of one replay are out (sent and not
 * answered) at once, whatever the destination's {@code max_in_flight} (which bounds the
 * ledger's attempts, not these: a streamed attempt has no row to re-send after a crash).
 * Memory: that many hooks, bodies included, held by the transport until answered.
 *
 * <p>A destination paced by the fleet's bucket ({@link FleetPacer}, leased once per pass
 * under the pump lock) is not streamed: {@link Dispatcher#replayStream} answers null.
 *
 * <p>Threads: {@link #open}, {@link #send} and {@link #flush} are the replay's thread's; the
 * window's permits are given back on the transport's thread that completes an attempt.
 */
final class StreamedReplay implements ReplayStream {

    /** The most sends of one replay out at once. */
    static final int WINDOW = 4096;
    /** The longest park while the destination's pace or the window holds a send. */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Outlet outlet;
    private final DestinationPauses pauses;
    private final BooleanSupplier stopping;
    private final LongSupplier wallMillis;
    private final Semaphore window = new Semaphore(WINDOW);
    private int unflushed;

    StreamedReplay(Outlet outlet, DestinationPauses pauses, BooleanSupplier stopping, LongSupplier wallMillis) {
        this.outlet = outlet;
        this.pauses = pauses;
        this.stopping = stopping;
        this.wallMillis = wallMillis;
    }

    @Override
    public boolean open() {
        if (stopping.getAsBoolean() || outlet.breakerHolding()) {
            return false;
        }
        try {
            return !pauses.pausedDestinations().contains(outlet.name)
                    && !pauses.disabledDestinations().containsKey(outlet.name);
        } catch (RuntimeException e) { // the store is failing: the ordinary way, which a pass reads again
            return false;
        }
    }

    @Override
    public CompletableFuture<Boolean> send(StoredHook hook) {
        if (!paced() || !roomOut()) {
            return null;
        }
        CompletableFuture<Boolean> sent;
        try {
            sent = outlet.sendStreamed(hook, wallMillis.getAsLong());
        } catch (RuntimeException e) { // the transport refused at once (closing): the ordinary way
            sent = null;
        }
        if (sent == null) {
            window.release();
            return null;
        }
        unflushed++;
        return sent.whenComplete((ok, e) -> window.release());
    }

    @Override
    public void flush() {
        if (unflushed > 0) {
            unflushed = 0;
            outlet.flushStreamed();
        }
    }

    /** Waits for the destination's pace; false when interrupted. */
    private boolean paced() {
        if (outlet.pacer == null) {
            return true;
        }
        for (long wait = outlet.pacer.tryTakeAtCommit(); wait > 0; wait = outlet.pacer.tryTakeAtCommit()) {
            flush();
            LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return true;
    }

    /** Takes a permit of the window, waiting for one (sends started first); false when interrupted. */
    private boolean roomOut() {
        if (window.tryAcquire()) {
            return true;
        }
        flush();
        try {
            window.acquire();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

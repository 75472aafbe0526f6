package org.sluice.edge.delivery;

import java.util.concurrent.CompletableFuture;
import org.sluice.edge.store.StoredHook;

/**
 * One way an attempt leaves Sluice: the HTTP client, or a broker's producer. The
 * {@link Dispatcher} decides what to send and when (due rows, pacing, breaker, claims,
 * retries); a transport only carries one attempt and says what came back.
 *
 * <p>One transport serves every destination of its {@code Target.Kind}; each lives in a
 * room of its own ({@code delivery.http}, {@code delivery.kafka}, {@code delivery.nats}) and
 * is made by the {@link TransportFactory} the dispatcher is given (the server's names each
 * room). Its
 * futures complete on its own threads and never exceptionally: every failure is an
 * {@link AttemptOutcome}. A transport must give up on an attempt within the destination's
 * {@code timeout_ms} ({@link AttemptResult.Failure#TIMEOUT}).
 */
public interface Transport extends AutoCloseable {

    /**
     * Prepares for attempts to {@code destination} (a connection pool, a producer). A
     * setting that cannot work fails here, naming the key ({@link IllegalArgumentException}).
     */
    void register(Destination destination);

    /**
     * Sends attempt {@code attempt} (from 1) of {@code hook} to {@code destination}, at wall
     * time {@code nowMillis}.
     */
    CompletableFuture<AttemptOutcome> send(Destination destination, StoredHook hook, int attempt, long nowMillis);

    /**
     * Starts the attempts {@link #send} handed over since the last flush, if the transport
     * holds them back so that one pass's attempts cost one hand-off to its I/O thread. The
     * dispatcher calls it after every pass that sent; a transport that starts each attempt
     * in {@code send} does nothing here.
     */
    default void flush() {
    }

    /** Stops: attempts still out complete as failed; nothing is sent after this. */
    @Override
    void close();
}

package org.sluice.edge.delivery.broker;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.edge.delivery.AttemptOutcome;

/**
 * The attempts a broker transport has out to one destination: sent, not yet answered. The
 * Kafka and NATS transports keep one table per destination; the broker's answer, the
 * deadline sweep and close each complete an attempt through it.
 *
 * <h2>One attempt's life</h2>
 * {@link #open} numbers the attempt (from 1, per table), gives it a deadline
 * {@code timeout_ms} from now and puts it in the table, before anything is sent, so that an
 * answer that comes back at once finds it. It then completes exactly once, by whichever
 * comes first:
 * <ul>
 *   <li>the broker's answer ({@link Attempt#complete}, or {@link #take} by number first when
 *       the answer names the attempt, as a NATS reply subject does);</li>
 *   <li>the sweep ({@link #sweep}, on the transport's timer, every tenth of
 *       {@code timeout_ms}, {@value #MAX_SWEEP_MS} ms at most: one timer task per
 *       destination, not one per attempt), once the deadline has passed: {@code timeout};</li>
 *   <li>the transport's close ({@link #completeAll}).</li>
 * </ul>
 * The future's own {@code complete} is the one gate: the first of these wins, the others
 * change nothing, and only the winner takes the attempt out of the table. An answer that
 * arrives after the sweep has completed the attempt is dropped. Nothing here takes a lock:
 * the table is a concurrent map, and each step is safe from any thread.
 */
public final class AttemptsOut<P> {

    /** The longest time between two sweeps of a table, in milliseconds. */
    public static final long MAX_SWEEP_MS = 100;

    private final Map<Long, Attempt<P>> out = new ConcurrentHashMap<>();
    private final AtomicLong numbers = new AtomicLong();
    private final long timeoutMs;
    private final AttemptOutcome timedOut;

    /**
     * @param timeoutMs the destination's {@code timeout_ms}: each attempt's deadline
     * @param timedOut  what an attempt past its deadline comes to ({@code timeout}, with the text for {@code last_error})
     */
    public AttemptsOut(long timeoutMs, AttemptOutcome timedOut) {
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        this.timeoutMs = timeoutMs;
        this.timedOut = timedOut;
    }

    /** How often the attempts out of a destination with this {@code timeout_ms} are swept: a tenth of it, 1 to {@value #MAX_SWEEP_MS} ms. */
    public static long sweepMillis(long timeoutMs) {
        return Math.max(1, Math.min(MAX_SWEEP_MS, timeoutMs / 10));
    }

    /**
     * Runs {@link #sweep} on {@code timer} every {@link #sweepMillis} of this table's
     * {@code timeout_ms}; nothing when the timer is shut down already (its transport is closed).
     */
    public void sweepOn(ScheduledExecutorService timer) {
        long every = sweepMillis(timeoutMs);
        try {
            var unused = timer.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closed: nothing will be sent to this destination
        }
    }

    /** A new attempt out, carrying {@code payload} (what the transport needs to send or judge it). */
    public Attempt<P> open(P payload) {
        long number = numbers.incrementAndGet();
        Attempt<P> a = new Attempt<>(this, number, payload,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        out.put(number, a);
        return a;
    }

    /** The attempt numbered {@code number}, taken out of the table; null when it is not out (never sent, or completed). */
    public Attempt<P> take(long number) {
        return out.remove(number);
    }

    /** Completes the attempts past their deadline as {@code timeout}. */
    public void sweep() {
        long now = System.nanoTime();
        for (Attempt<P> a : out.values()) {
            if (now - a.deadlineNanos >= 0) {
                a.complete(timedOut);
            }
        }
    }

    /** Completes every attempt still out with {@code outcome} (the transport is closing). */
    public void completeAll(AttemptOutcome outcome) {
        for (Attempt<P> a : out.values()) {
            a.complete(outcome);
        }
    }

    /** One attempt out: completes once (its answer, the sweep's timeout or close). */
    public static final class Attempt<P> {
        private final AttemptsOut<P> table;
        private final long number;
        private final P payload;
        /** {@link System#nanoTime()} after which the sweep completes it as {@code timeout}. */
        private final long deadlineNanos;
        private final CompletableFuture<AttemptOutcome> future = new CompletableFuture<>();

        private Attempt(AttemptsOut<P> table, long number, P payload, long deadlineNanos) {
            this.table = table;
            this.number = number;
            this.payload = payload;
            this.deadlineNanos = deadlineNanos;
        }

        /** The attempt's number in its table, from 1. */
        public long number() {
            return number;
        }

        public P payload() {
            return payload;
        }

        /** Completes with {@code outcome} unless completed already; the first completion takes it out of the table. */
        public void complete(AttemptOutcome outcome) {
            if (future.complete(outcome)) {
                table.out.remove(number, this);
            }
        }

        public boolean isDone() {
            return future.isDone();
        }

        /** What the attempt comes to; completes on the broker client's threads, the timer or the closing thread. */
        public CompletableFuture<AttemptOutcome> future() {
            return future;
        }
    }
}

package org.sluice.fleet;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bounded queue of settle operations between the request threads (many producers)
 * and the drainer thread (one consumer). Lock-free.
 *
 * <p>Design. A {@link ConcurrentLinkedQueue} holds the operations; an {@link
 * AtomicInteger} {@code size} bounds it. A producer first reserves a place ({@code
 * incrementAndGet}); past {@code max} it gives the place back and the operation is
 * dropped and counted. The consumer gives a place back after each poll. So {@code size}
 * is always at least the number of queued operations and at most {@code max} plus the
 * number of producers in the middle of an offer: the queue never holds more than {@code
 * max}.
 */
final class SettleQueue {

    /** One settle operation. {@code hookId == null} is a release. */
    public record Op(String key, String token, String hookId, long ttlSeconds) {
        public boolean promote() {
            return hookId != null;
        }
    }

    private final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final int max;

    public SettleQueue(int max) {
        this.max = max;
    }

    /** Queues {@code op}; false (and counted) when the queue is full. */
    public boolean offer(Op op) {
        if (size.incrementAndGet() > max) {
            size.decrementAndGet();
            dropped.increment();
            return false;
        }
        queue.offer(op);
        accepted.increment();
        return true;
    }

    /**
     * Puts back an operation whose send failed on the connection, for the next drain;
     * false (counted as dropped) when the queue is full meanwhile.
     */
    boolean requeue(Op op) {
        if (size.incrementAndGet() > max) {
            size.decrementAndGet();
            dropped.increment();
            return false;
        }
        queue.offer(op);
        return true;
    }

    /** The next operation, or null. Drainer thread only. */
    Op poll() {
        Op op = queue.poll();
        if (op != null) {
            size.decrementAndGet();
        }
        return op;
    }

    public int depth() {
        return Math.max(0, size.get());
    }

    public long accepted() {
        return accepted.sum();
    }

    public long dropped() {
        return dropped.sum();
    }
}

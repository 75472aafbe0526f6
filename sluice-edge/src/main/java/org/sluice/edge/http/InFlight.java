package org.sluice.edge.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the hooks handed to their stage ({@link HookStage}, on the event loop or a worker) and
 * not yet answered, so that a graceful stop
 * can wait them out. Once draining, every answer closes its connection.
 */
public final class InFlight {

    private final AtomicInteger count = new AtomicInteger();
    private volatile boolean draining;

    void enter() {
        count.incrementAndGet();
    }

    void exit() {
        if (count.decrementAndGet() == 0 && draining) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    public int count() {
        return count.get();
    }

    boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }

    /** Waits (on the stopping thread, never an event loop) until nothing is in flight. */
    public synchronized boolean awaitIdle(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (count.get() > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                wait(Math.max(1L, left / 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}

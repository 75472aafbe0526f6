package org.sluice.edge.server;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The server's background threads ({@link Retention}, {@link Sweeper}): each one daemon
 * scheduler thread with a name of its own, made alike and stopped alike.
 */
final class Schedulers {

    private Schedulers() {
    }

    /** A single daemon thread named {@code name} that runs scheduled tasks. */
    static ScheduledExecutorService daemon(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Interrupts the task in progress, takes no new one, and waits up to {@code seconds} for
     * the thread to end. False only when the wait ran out with the thread still running; an
     * interrupt of the caller ends the wait early and is kept for it.
     */
    static boolean stop(ExecutorService scheduler, long seconds) {
        scheduler.shutdownNow();
        try {
            return scheduler.awaitTermination(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}

package org.sluice.edge.cli;

import java.util.concurrent.CountDownLatch;

/**
 * Holds a command that runs in the foreground ({@code serve}, {@code receive}) until SIGTERM
 * or SIGINT. The JVM runs its shutdown hooks on such a signal and exits once they return;
 * the hook made here runs the command's own stop and then lets {@link #await} return, so
 * the command finishes its work and prints its last lines before the process ends.
 */
final class UntilStopped {

    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Registers {@code stop} to run on SIGTERM or SIGINT, in a thread named {@code threadName}. */
    UntilStopped(String threadName, Runnable stop) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.run();
            stopped.countDown();
        }, threadName));
    }

    /** Waits until the stop has run. */
    void await() throws InterruptedException {
        stopped.await();
    }
}

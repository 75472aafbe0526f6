package org.sluice.edge.threads;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads with a name of their own, and the one way an executor is stopped: told to
 * stop, then waited for up to a bound. An interrupt of the caller ends the wait early and is
 * kept for it (its flag set again), so that a closing thread still closes what comes after.
 */
public final class Threads {

    private Threads() {
    }

    /** A daemon thread named {@code name} that runs {@code r} (not started). */
    public static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Makes daemon threads that are all named {@code name}. */
    public static ThreadFactory named(String name) {
        return r -> daemon(r, name);
    }

    /**
     * Makes the daemon threads of a pool, named {@code prefix} and a number: {@code first} for
     * the first thread made, then one more for each (e.g. {@code sluice-replay-0},
     * {@code sluice-replay-1}).
     */
    public static ThreadFactory numbered(String prefix, int first) {
        AtomicInteger next = new AtomicInteger(first);
        return r -> daemon(r, prefix + next.getAndIncrement());
    }

    /** A single daemon thread named {@code name} that runs scheduled tasks. */
    public static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(named(name));
    }

    /**
     * Interrupts the tasks in progress, drops the queued ones and waits up to {@code seconds}
     * for the threads to end. False only when the wait ran out with a thread still running.
     */
    public static boolean stopNow(ExecutorService executor, long seconds) {
        executor.shutdownNow();
        return awaitStopped(executor, seconds);
    }

    /**
     * Takes no new task, lets the queued ones run, and waits up to {@code seconds} for them.
     * False only when the wait ran out with a thread still running.
     */
    public static boolean stop(ExecutorService executor, long seconds) {
        executor.shutdown();
        return awaitStopped(executor, seconds);
    }

    /**
     * Waits up to {@code seconds} for an executor already told to stop. False only when the
     * wait ran out with a thread still running; an interrupt ends the wait, answers true and
     * is kept for the caller.
     */
    public static boolean awaitStopped(ExecutorService executor, long seconds) {
        try {
            return executor.awaitTermination(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}

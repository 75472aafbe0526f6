package org.sluice.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one body on several threads that all start at the same moment (a crowd for a
 * limiter or a batcher to face), waits for every one of them, and fails with the first
 * thing any of them threw.
 */
public final class Together {

    /** What each thread runs; {@code thread} is its index, from 0. */
    @FunctionalInterface
    public interface Body {
        void run(int thread) throws Exception;
    }

    private Together() {
    }

    /** Runs {@code body} on {@code threads} threads released at once; returns when all have ended. */
    public static void run(int threads, Body body) throws InterruptedException {
        run(threads, body, () -> { });
    }

    /**
     * As {@link #run(int, Body)}, with {@code atStart} run on the calling thread after
     * every thread is waiting and just before they are released (e.g. to read a clock).
     */
    public static void run(int threads, Body body, Runnable atStart) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    ready.countDown();
                    go.await();
                    body.run(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "together-" + t);
            thread.start();
            started.add(thread);
        }
        ready.await();
        atStart.run();
        go.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread of the crowd failed: " + failure.get(), failure.get());
        }
    }
}

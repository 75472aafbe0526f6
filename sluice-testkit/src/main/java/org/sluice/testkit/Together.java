package org.sluice.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one body on several threads that all start at the same moment (a crowd for a
 * limiter or a batcher to face), waits for every one of them, and fails with the first
 * thing any of them threw. {@link #run} waits for the crowd; {@link #start} hands back a
 * {@link Crowd} so the calling thread can work alongside it (e.g. read what the crowd
 * writes) and join it afterwards.
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
        start(threads, body, atStart).join();
    }

    /**
     * Releases {@code body} on {@code threads} threads at once and returns while they run.
     * The caller must {@link Crowd#join()} the crowd, which is where a failure of any of
     * its threads is reported.
     */
    public static Crowd start(int threads, Body body) throws InterruptedException {
        return start(threads, body, () -> { });
    }

    private static Crowd start(int threads, Body body, Runnable atStart) throws InterruptedException {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(threads);
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
                } finally {
                    ended.countDown();
                }
            }, "together-" + t);
            thread.start();
            started.add(thread);
        }
        ready.await();
        atStart.run();
        go.countDown();
        return new Crowd(started, ended, failure);
    }

    /** A crowd started by {@link #start}: running until every thread's body has returned or thrown. */
    public static final class Crowd {
        private final List<Thread> threads;
        private final CountDownLatch ended;
        private final AtomicReference<Throwable> failure;

        private Crowd(List<Thread> threads, CountDownLatch ended, AtomicReference<Throwable> failure) {
            this.threads = threads;
            this.ended = ended;
            this.failure = failure;
        }

        /** Whether every thread has ended, waiting up to {@code timeout} for it (0: just look). */
        public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
            return ended.await(timeout, unit);
        }

        /** Waits for every thread to end; fails with the first thing any of them threw. */
        public void join() throws InterruptedException {
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a thread of the crowd failed: " + failure.get(), failure.get());
            }
        }
    }
}

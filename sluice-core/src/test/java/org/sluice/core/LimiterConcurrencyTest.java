package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Threads racing on one limiter of two bandwidths, counted exactly: the clock moves only
 * between rounds, so each round admits exactly what the emptier bandwidth holds, and a
 * charge never lands on one bandwidth without the other.
 */
class LimiterConcurrencyTest {

    private static final int THREADS = 8;
    private static final int CALLS_PER_ROUND = 2_000;

    @Test
    void racingThreadsTakeExactlyWhatEveryBandwidthAllows() throws Exception {
        TestClock clock = new TestClock(7L);
        // 1,000 per second in bursts of 300 (1 ms a permit), and 500 per second in bursts of 400 (2 ms a permit)
        Limiter limiter = Limiter.builder()
                .bandwidth(Limit.of(1000, 300))
                .bandwidth(Limit.of(500, 400))
                .clock(clock).build();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            // both full: the first bandwidth's 300 bind (the second is left 100)
            assertThat(round(pool, limiter)).isEqualTo(300L);
            // +100 ms: the first refilled 100, the second holds 150: 100 (the second is left 50)
            clock.advanceMillis(100);
            assertThat(round(pool, limiter)).isEqualTo(100L);
            // +200 ms: the first holds 200, the second 150: the second binds
            clock.advanceMillis(200);
            assertThat(round(pool, limiter)).isEqualTo(150L);
            // +1 s: both full again: 300
            clock.advanceMillis(1000);
            assertThat(round(pool, limiter)).isEqualTo(300L);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every thread calls tryAcquire() until the round ends; answers the admitted total. */
    private static long round(ExecutorService pool, Limiter limiter) throws Exception {
        return race(pool, THREADS, CALLS_PER_ROUND, (thread, i) -> limiter.tryAcquire() == 0L);
    }

    /** Call {@code i} of thread {@code thread} in a race: true when admitted. */
    @FunctionalInterface
    interface Attempt {
        boolean admitted(int thread, int i);
    }

    /**
     * Starts {@code threads} threads together (a barrier), each making {@code calls}
     * attempts; answers how many were admitted in all (shared with {@link
     * KeyedLimiterConcurrencyTest}).
     */
    static long race(ExecutorService pool, int threads, int calls, Attempt attempt) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Long>> counts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            counts.add(pool.submit(() -> {
                start.await();
                long admitted = 0;
                for (int i = 0; i < calls; i++) {
                    if (attempt.admitted(thread, i)) {
                        admitted++;
                    }
                }
                return admitted;
            }));
        }
        long total = 0;
        for (Future<Long> f : counts) {
            total += f.get();
        }
        return total;
    }
}

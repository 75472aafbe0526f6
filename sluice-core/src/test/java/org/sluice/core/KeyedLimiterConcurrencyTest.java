package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Threads racing on a keyed limiter of two bandwidths over a few keys, counted exactly:
 * the clock moves only between rounds, so each round admits to each key exactly what
 * its emptier bandwidth holds. New keys are made while other threads charge (rows are
 * inserted and the shard's arrays grow mid-round), and none of it loses or adds a charge.
 */
class KeyedLimiterConcurrencyTest {

    private static final int THREADS = 8;
    private static final int KEYS = 200;
    private static final int CALLS_PER_ROUND = 20_000;

    @Test
    void racingThreadsTakeExactlyWhatEachKeysBandwidthsAllow() throws Exception {
        TestClock clock = new TestClock(7L);
        // per key: 1,000 per second in bursts of 30 (1 ms a permit), and 500 per second in bursts of 40 (2 ms a permit)
        KeyedLimiter<Long> limiter = KeyedLimiter.<Long>builder()
                .bandwidth(Limit.of(1000, 30))
                .bandwidth(Limit.of(500, 40))
                .clock(clock).sweepInterval(Duration.ZERO).build();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1); // one more for the sweeper
        try {
            // both full: the first bandwidth's 30 bind (the second is left 10)
            assertThat(round(pool, limiter)).isEqualTo(30L * KEYS);
            // +10 ms: the first refilled 10, the second holds 15: 10 (the second is left 5)
            clock.advanceMillis(10);
            assertThat(round(pool, limiter)).isEqualTo(10L * KEYS);
            // +20 ms: the first holds 20, the second 15: the second binds
            clock.advanceMillis(20);
            assertThat(round(pool, limiter)).isEqualTo(15L * KEYS);
            // +1 s: both full again; a sweep races the round and changes nothing
            clock.advanceMillis(1000);
            Future<?> sweeper = pool.submit(() -> {
                for (int s = 0; s < 4 * KeyedTable.SHARDS; s++) {
                    limiter.sweepTick();
                }
            });
            assertThat(round(pool, limiter)).isEqualTo(30L * KEYS);
            sweeper.get();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every thread charges the keys in turn, each from its own offset, until the round ends; answers the admitted total. */
    private static long round(ExecutorService pool, KeyedLimiter<Long> limiter) throws Exception {
        return LimiterConcurrencyTest.race(pool, THREADS, CALLS_PER_ROUND,
                (thread, i) -> limiter.tryAcquire((long) ((i + thread * 37) % KEYS), 1) == 0L);
    }
}

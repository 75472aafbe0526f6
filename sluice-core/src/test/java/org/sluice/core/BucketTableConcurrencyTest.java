package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Exact counts under real threads; no test here asserts a duration. */
class BucketTableConcurrencyTest {

    private static final long T = 1_000L;

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    private <V> List<V> runAll(List<Callable<V>> tasks) throws Exception {
        List<Future<V>> futures = new ArrayList<>();
        for (Callable<V> task : tasks) {
            futures.add(pool.submit(task));
        }
        List<V> results = new ArrayList<>();
        for (Future<V> f : futures) {
            results.add(f.get(120, TimeUnit.SECONDS));
        }
        return results;
    }

    @Test
    void eightThreadsOnOneKeyWithAFrozenClockAdmitExactlyBurst() throws Exception {
        int burst = 1_000;
        RateLimiter limiter = RateLimiter.builder().limit(Limit.of(10, burst))
                .clock(new TestClock(42L)).sweepInterval(Duration.ZERO).build();
        CyclicBarrier start = new CyclicBarrier(8);
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            tasks.add(() -> {
                start.await();
                long admitted = 0;
                for (int i = 0; i < 100_000; i++) {
                    if (limiter.tryAcquire("hot") == 0L) {
                        admitted++;
                    }
                }
                return admitted;
            });
        }
        long admitted = runAll(tasks).stream().mapToLong(Long::longValue).sum();
        assertThat(admitted).isEqualTo(burst);
        assertThat(limiter.stats()).isEqualTo(new RateLimiter.Stats(1, burst, 800_000L - burst, 0));
    }

    @Test
    void realClockAdmitsAtMostBurstPlusRateTimesElapsed() throws Exception {
        double rate = 2_000;
        int burst = 50;
        RateLimiter limiter = RateLimiter.builder().limit(Limit.of(rate, burst)).sweepInterval(Duration.ZERO).build();
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder admitted = new LongAdder();
        CyclicBarrier start = new CyclicBarrier(5);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            tasks.add(() -> {
                start.await();
                while (!stop.get()) {
                    if (limiter.tryAcquire("hot") == 0L) {
                        admitted.increment();
                    }
                }
                return null;
            });
        }
        tasks.add(() -> { // a sweeper racing the chargers the whole time
            start.await();
            while (!stop.get()) {
                limiter.sweepTick();
            }
            return null;
        });
        long begin = System.nanoTime();
        List<Future<Void>> futures = new ArrayList<>();
        for (Callable<Void> task : tasks) {
            futures.add(pool.submit(task));
        }
        while (System.nanoTime() - begin < 1_000_000_000L) {
            Thread.sleep(20); // how long the load runs, not a refill wait
        }
        stop.set(true);
        for (Future<Void> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        long elapsed = System.nanoTime() - begin;
        long bound = burst + (long) Math.ceil(rate * elapsed / 1e9);
        assertThat(admitted.sum()).isBetween((long) burst, bound);
        assertThat(limiter.stats().admitted()).isEqualTo(admitted.sum());
    }

    /**
     * The sweep/charge race. Burst 1; each step the clock moves on by one interval, so
     * every row is full again, and two threads charge every key once while a third
     * sweeps the whole time at the same instant. From a full bucket exactly one of the
     * two charges fits: a sweep that deleted a row after a charge had landed in it would
     * let the second one in too, and the step would admit more than one per key.
     */
    @Test
    void sweepRacingChargesNeverLosesACharge() throws Exception {
        int keys = 2_000;
        int steps = 400;
        String[] names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "tenant-" + i;
        }
        BucketTable table = new BucketTable();
        long base = 1_000_000_000L;
        AtomicBoolean chargingDone = new AtomicBoolean();
        LongAdder[] admittedPerStep = new LongAdder[steps];
        for (int s = 0; s < steps; s++) {
            admittedPerStep[s] = new LongAdder();
        }
        CyclicBarrier go = new CyclicBarrier(3, () -> chargingDone.set(false));
        CyclicBarrier charged = new CyclicBarrier(2, () -> chargingDone.set(true));
        CyclicBarrier done = new CyclicBarrier(3);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            boolean ascending = t == 0;
            tasks.add(() -> {
                for (int s = 0; s < steps; s++) {
                    go.await();
                    long now = base + s * T;
                    long admitted = 0;
                    for (int j = 0; j < keys; j++) {
                        if (table.tryCharge(names[ascending ? j : keys - 1 - j], T, T, now) == 0L) {
                            admitted++;
                        }
                    }
                    admittedPerStep[s].add(admitted);
                    charged.await();
                    done.await();
                }
                return null;
            });
        }
        tasks.add(() -> {
            for (int s = 0; s < steps; s++) {
                go.await();
                long now = base + s * T;
                while (!chargingDone.get()) {
                    table.sweepNext(now);
                }
                done.await();
            }
            return null;
        });
        runAll(tasks);
        for (int s = 0; s < steps; s++) {
            assertThat(admittedPerStep[s].sum()).as("step %d", s).isEqualTo(keys);
        }
        assertThat(table.swept()).as("the sweep did race: it deleted rows").isPositive();
    }

    /**
     * Shards grow (rebuilds that retire their arrays) while other threads charge keys
     * already present: each key's count must come out exact.
     */
    @Test
    void growingShardsUnderConcurrentChargesKeepEveryCountExact() throws Exception {
        int threads = 4;
        int ownKeys = 60_000;
        int sharedKeys = 8;
        long now = 5_000_000L;
        long ownTau = 5 * T;
        long sharedTau = 100 * T;
        BucketTable table = new BucketTable();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Callable<long[]>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            tasks.add(() -> {
                start.await();
                long[] sharedAdmitted = new long[sharedKeys];
                for (int i = 0; i < ownKeys; i++) {
                    String own = "own-" + id + "-" + i;
                    table.tryCharge(own, T, ownTau, now);
                    int s = i % sharedKeys;
                    if (table.tryCharge("shared-" + s, T, sharedTau, now) == 0L) {
                        sharedAdmitted[s]++;
                    }
                    table.tryCharge(own, T, ownTau, now);
                }
                return sharedAdmitted;
            });
        }
        List<long[]> results = runAll(tasks);
        for (int s = 0; s < sharedKeys; s++) {
            long sum = 0;
            for (long[] r : results) {
                sum += r[s];
            }
            assertThat(sum).as("shared-%d", s).isEqualTo(100L);
            assertThat(table.remaining("shared-" + s, T, sharedTau, now)).isZero();
        }
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < ownKeys; i++) {
                assertThat(table.remaining("own-" + t + "-" + i, T, ownTau, now)).as("own-%d-%d", t, i).isEqualTo(3.0);
            }
        }
        assertThat(table.size()).isEqualTo(threads * ownKeys + sharedKeys);
    }

    /**
     * Rows are swept (and shards compacted) while threads re-charge the same keys; with
     * a frozen clock every key must end with exactly its charges.
     */
    @Test
    void compactingSweepsUnderConcurrentChargesKeepEveryCountExact() throws Exception {
        int threads = 3;
        int keys = 20_000;
        long tau = 3 * T;
        BucketTable table = new BucketTable();
        long before = 1_000_000L;
        // a generation of full rows to sweep and compact away while the new charges run
        for (int i = 0; i < keys; i++) {
            table.tryCharge("k-" + i, T, tau, before);
        }
        long now = before + tau;
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            tasks.add(() -> {
                start.await();
                long admitted = 0;
                for (int i = 0; i < keys; i++) {
                    if (table.tryCharge("k-" + i, T, tau, now) == 0L) {
                        admitted++;
                    }
                }
                return admitted;
            });
        }
        Future<Void> sweeper = pool.submit(() -> {
            start.await();
            while (!stop.get()) {
                table.sweepNext(now);
            }
            return null;
        });
        long admitted = runAll(tasks).stream().mapToLong(Long::longValue).sum();
        stop.set(true);
        sweeper.get(60, TimeUnit.SECONDS);
        assertThat(admitted).isEqualTo((long) threads * keys); // 3 charges fit a burst of 3
        for (int i = 0; i < keys; i++) {
            assertThat(table.remaining("k-" + i, T, tau, now)).as("k-%d", i).isZero();
        }
        assertThat(table.size()).isEqualTo(keys);
    }
}

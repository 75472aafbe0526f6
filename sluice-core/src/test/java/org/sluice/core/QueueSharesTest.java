package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class QueueSharesTest {

    @Test
    void noQueueCapsMeansNothingCounted() {
        QueueShares shares = new QueueShares();
        assertThat(shares.acquire("acme", 100, Limit.of(1, 1))).isSameAs(QueueShares.Decision.UNCOUNTED);
        assertThat(shares.acquire("acme", 100, null)).isSameAs(QueueShares.Decision.UNCOUNTED);
        assertThat(QueueShares.Decision.UNCOUNTED.admitted()).isTrue();
        assertThat(QueueShares.Decision.UNCOUNTED.lease()).isNull();
        assertThat(shares.tenants()).isZero();
        shares.release(null);
    }

    @Test
    void maxQueueCountsHooks() {
        QueueShares shares = new QueueShares(250);
        Limit limit = Limit.of(1, 1).withMaxQueue(2);
        QueueShares.Decision first = shares.acquire("acme", 10, limit);
        QueueShares.Decision second = shares.acquire("acme", 10, limit);
        QueueShares.Decision third = shares.acquire("acme", 10, limit);
        assertThat(first.admitted()).isTrue();
        assertThat(second.admitted()).isTrue();
        assertThat(third.admitted()).isFalse();
        assertThat(third.retryAfterMillis()).isEqualTo(250);
        assertThat(third.lease()).isNull();
        assertThat(shares.hooks("acme")).isEqualTo(2);
        assertThat(shares.bytes("acme")).isEqualTo(20);
        // another tenant is unaffected
        assertThat(shares.acquire("other", 10, limit).admitted()).isTrue();
        shares.release(first.lease());
        assertThat(shares.acquire("acme", 10, limit).admitted()).isTrue();
    }

    @Test
    void maxQueueBytesCountsBytesAndARefusalCountsNothing() {
        QueueShares shares = new QueueShares();
        Limit limit = Limit.of(1, 1).withMaxQueueBytes(100);
        QueueShares.Decision a = shares.acquire("acme", 60, limit);
        assertThat(a.admitted()).isTrue();
        assertThat(shares.acquire("acme", 41, limit).admitted()).isFalse();
        assertThat(shares.hooks("acme")).isEqualTo(1);
        assertThat(shares.bytes("acme")).isEqualTo(60);
        QueueShares.Decision b = shares.acquire("acme", 40, limit);
        assertThat(b.admitted()).isTrue();
        assertThat(shares.bytes("acme")).isEqualTo(100);
        shares.release(a.lease());
        shares.release(b.lease());
        assertThat(shares.tenants()).isZero();
    }

    @Test
    void oneOversizeHookIsAdmittedWhenTheTenantHoldsNothingElse() {
        QueueShares shares = new QueueShares();
        Limit limit = Limit.of(1, 1).withMaxQueueBytes(100);
        QueueShares.Decision big = shares.acquire("acme", 500, limit);
        assertThat(big.admitted()).isTrue();
        assertThat(shares.acquire("acme", 1, limit).admitted()).isFalse();
        assertThat(shares.acquire("acme", 500, limit).admitted()).isFalse();
        shares.release(big.lease());
        QueueShares.Decision small = shares.acquire("acme", 1, limit);
        assertThat(small.admitted()).isTrue();
        assertThat(shares.acquire("acme", 500, limit).admitted()).as("not alone any more").isFalse();
        shares.release(small.lease());
    }

    @Test
    void entryDisappearsAtZeroAndDoubleReleaseIsANoOp() {
        QueueShares shares = new QueueShares();
        Limit limit = Limit.of(1, 1).withMaxQueue(5);
        QueueShares.Decision d = shares.acquire("acme", 7, limit);
        assertThat(shares.tenants()).isEqualTo(1);
        assertThat(d.lease().tenant()).isEqualTo("acme");
        assertThat(d.lease().bytes()).isEqualTo(7);
        shares.release(d.lease());
        assertThat(shares.tenants()).isZero();
        QueueShares.Decision other = shares.acquire("acme", 3, limit);
        shares.release(d.lease());
        assertThat(shares.hooks("acme")).isEqualTo(1);
        assertThat(shares.bytes("acme")).isEqualTo(3);
        shares.release(other.lease());
        assertThat(shares.tenants()).isZero();
    }

    @Test
    void badInput() {
        assertThatThrownBy(() -> new QueueShares().acquire("a", -1, Limit.of(1, 1).withMaxQueue(1)))
                .hasMessage("bytes must be at least 0, got -1");
        assertThatThrownBy(() -> new QueueShares(0)).hasMessage("retryAfterMillis must be at least 1, got 0");
    }

    /**
     * Threads acquire and release at random across a few tenants. Every admitted lease is
     * recorded in a shared in-flight tally; the tally must never pass a cap (except one lone
     * oversize hook), and at the end counters and the map must be empty.
     */
    @Test
    void concurrentAcquireAndReleaseNeverPassTheCapAndReturnToZero() throws Exception {
        QueueShares shares = new QueueShares();
        Limit limit = Limit.of(1, 1).withMaxQueue(6).withMaxQueueBytes(1_000);
        String[] tenants = {"t0", "t1", "t2"};
        AtomicLong[] heldHooks = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        AtomicLong[] heldBytes = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                ArrayDeque<Object[]> mine = new ArrayDeque<>();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 200_000; i++) {
                    if (!mine.isEmpty() && (mine.size() > 3 || random.nextBoolean())) {
                        Object[] held = mine.poll();
                        QueueShares.Lease lease = (QueueShares.Lease) held[0];
                        int k = (Integer) held[1];
                        // take it out of the tally before the counters, so the tally never undercounts
                        heldHooks[k].decrementAndGet();
                        heldBytes[k].addAndGet(-lease.bytes());
                        shares.release(lease);
                        continue;
                    }
                    int k = random.nextInt(tenants.length);
                    long bytes = random.nextInt(20) == 0 ? 1_500 : random.nextInt(400);
                    QueueShares.Decision d = shares.acquire(tenants[k], bytes, limit);
                    if (!d.admitted()) {
                        refused.incrementAndGet();
                        continue;
                    }
                    admitted.incrementAndGet();
                    long h = heldHooks[k].incrementAndGet();
                    long b = heldBytes[k].addAndGet(bytes);
                    if (h > 6 || (b > 1_000 && h > 1)) {
                        violations.add(tenants[k] + " held " + h + " hooks, " + b + " bytes");
                    }
                    mine.add(new Object[] {d.lease(), k});
                }
                for (Object[] held : mine) {
                    int k = (Integer) held[1];
                    heldHooks[k].decrementAndGet();
                    heldBytes[k].addAndGet(-((QueueShares.Lease) held[0]).bytes());
                    shares.release((QueueShares.Lease) held[0]);
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(violations).isEmpty();
        assertThat(admitted.get()).isPositive();
        assertThat(refused.get()).isPositive();
        for (String tenant : tenants) {
            assertThat(shares.hooks(tenant)).isZero();
            assertThat(shares.bytes(tenant)).isZero();
        }
        assertThat(shares.tenants()).isZero();
    }
}

package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SettleQueueTest {

    @Test
    void concurrentProducersNeverExceedTheBound() throws Exception {
        SettleQueue q = new SettleQueue(1_000);
        AtomicInteger refused = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    if (!q.offer(new SettleQueue.Op("k", "tok", null, 0))) {
                        refused.incrementAndGet();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        assertThat(q.accepted()).isEqualTo(1_000);
        assertThat(q.dropped()).isEqualTo(39_000).isEqualTo(refused.get());
        assertThat(q.depth()).isEqualTo(1_000);
        int polled = 0;
        while (q.poll() != null) {
            polled++;
        }
        assertThat(polled).isEqualTo(1_000);
        assertThat(q.depth()).isZero();
        assertThat(q.offer(new SettleQueue.Op("k", "tok", "id", 1))).isTrue();
    }
}

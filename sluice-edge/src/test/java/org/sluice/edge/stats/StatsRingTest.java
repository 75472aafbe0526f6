package org.sluice.edge.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.sluice.edge.stats.StatsRing.Series;

class StatsRingTest {

    private static final long T0 = 1_700_000_000_000L;

    private final AtomicLong now = new AtomicLong(T0);
    private final StatsRing ring = new StatsRing(now::get);

    private void at(long secondsAfterT0) {
        now.set(T0 + secondsAfterT0 * 1000L);
    }

    private static long sec(long secondsAfterT0) {
        return T0 / 1000L + secondsAfterT0;
    }

    @Test
    void countsEachSecondAndSeriesApart() {
        at(0);
        ring.add(Series.ACCEPTED);
        ring.add(Series.ACCEPTED);
        ring.add(Series.DUPLICATE);
        now.addAndGet(999);          // still second 0
        ring.add(Series.ACCEPTED);
        at(2);
        ring.add(Series.REFUSED_TENANT);
        ring.add(Series.ACCEPTED);

        assertThat(ring.snapshot(Series.ACCEPTED, sec(2), 4)).containsExactly(0, 3, 0, 1);
        assertThat(ring.snapshot(Series.DUPLICATE, sec(2), 4)).containsExactly(0, 1, 0, 0);
        assertThat(ring.snapshot(Series.REFUSED_TENANT, sec(2), 4)).containsExactly(0, 0, 0, 1);
        assertThat(ring.snapshot(Series.VERIFICATION_FAILED, sec(2), 4)).containsExactly(0, 0, 0, 0);
    }

    @Test
    void theLastWholeSecondLeavesTheCurrentOneOut() {
        at(5);
        now.addAndGet(400);
        assertThat(ring.lastWholeSecond()).isEqualTo(sec(4));
    }

    @Test
    void aSlotReusedAWholeRingLaterStartsFromZero() {
        at(0);
        ring.add(Series.ACCEPTED);
        ring.add(Series.ACCEPTED);
        at(StatsRing.SECONDS);       // same slot, 900 s later
        ring.add(Series.ACCEPTED);

        assertThat(ring.snapshot(Series.ACCEPTED, sec(StatsRing.SECONDS), 1)).containsExactly(1);
        // The old second is out of the ring: it reads as zero, not as the new count.
        assertThat(ring.snapshot(Series.ACCEPTED, sec(0), 1)).containsExactly(0);
    }

    @Test
    void aStaleCellReadsAsZeroWithoutBeingCleared() {
        at(3);
        ring.add(Series.DUPLICATE);
        // 900 s later nobody wrote the slot of second 903; it still holds second 3's count.
        long[] window = ring.snapshot(Series.DUPLICATE, sec(3 + StatsRing.SECONDS), StatsRing.SECONDS);
        assertThat(window).containsOnly(0);
        assertThat(ring.snapshot(Series.DUPLICATE, sec(3 + StatsRing.SECONDS - 1), StatsRing.SECONDS)[0])
                .isEqualTo(1);
    }

    @Test
    void anEventFromAnOlderRingThanTheCellIsDroppedNotCountedAsNew() {
        at(StatsRing.SECONDS + 7);
        ring.add(Series.ACCEPTED);
        at(7);                       // the wall clock stepped back a whole ring
        ring.add(Series.ACCEPTED);

        assertThat(ring.snapshot(Series.ACCEPTED, sec(StatsRing.SECONDS + 7), 1)).containsExactly(1);
        assertThat(ring.snapshot(Series.ACCEPTED, sec(7), 1)).containsExactly(0);
    }

    @Test
    void exactUnderConcurrentAdders() throws InterruptedException {
        at(1);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 50_000; i++) {
                    ring.add(Series.ACCEPTED);
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(ring.snapshot(Series.ACCEPTED, sec(1), 1)).containsExactly(200_000);
    }

    @Test
    void aFullWindowIsNineHundredPointsAndOtherSizesAreRefused() {
        at(10);
        assertThat(ring.snapshot(Series.ACCEPTED, sec(9), StatsRing.SECONDS)).hasSize(900);
        assertThatThrownBy(() -> ring.snapshot(Series.ACCEPTED, sec(9), 0))
                .hasMessage("seconds must be 1 to 900, got 0");
        assertThatThrownBy(() -> ring.snapshot(Series.ACCEPTED, sec(9), 901))
                .hasMessage("seconds must be 1 to 900, got 901");
    }
}

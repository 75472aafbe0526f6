package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.Together;

/**
 * The counting lanes of a carve ({@link SlotTable}, "Counting lanes"): counts stay exact
 * with more threads than lanes; a lane goes back to the carve when its thread ends; a lane
 * left by an ended process is taken over with its counts kept; a lane of a live process
 * is never written.
 */
class CountingLanesTest {

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(5_000_000_000_000L);
    private SharedArena arena;
    private SharedRate rl; // 2 per hour: each key's first 2 charges admitted, the rest refused

    @BeforeEach
    void open() {
        arena = SharedArena.create(files.fresh(), 1 << 20);
        rl = arena.rate("lanes", 2, Duration.ofHours(1), 4096, clock);
    }

    @AfterEach
    void close() throws Exception {
        arena.close();
        files.close();
    }

    /** Each of {@code threads} threads charges its own new key {@code calls} times: 2 admitted, the rest refused. */
    private void crowd(String name, int threads, int calls) throws InterruptedException {
        Together.run(threads, t -> {
            for (int i = 0; i < calls; i++) {
                rl.allow(name + "-" + t);
            }
        });
    }

    @Test
    void countsAreExactWithMoreThreadsThanLanesAndEndedThreadsGiveTheirLanesBack() throws InterruptedException {
        crowd("first", 40, 5_000); // 40 threads for 16 holders and 16 lanes: the rest count atomically
        SharedRate.Stats s = rl.stats();
        assertThat(s.allowed()).isEqualTo(80L);
        assertThat(s.denied()).isEqualTo(40L * 4_998);
        assertThat(rl.table().lanesHeld()).as("every counting thread has ended and the sum released its lane").isZero();

        crowd("second", 3, 10); // new threads take lanes again and add on to the counts already there
        assertThat(rl.stats().allowed()).isEqualTo(86L);
        assertThat(rl.stats().denied()).isEqualTo(40L * 4_998 + 3 * 8);
        assertThat(rl.table().lanesHeld()).isZero();
    }

    @Test
    void aLaneLeftByAnEndedProcessIsTakenOverAndItsCountsKept() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long token = gone.pid() << 32 | 0x2468_ACE1L;
        assertThat(SlotTable.ended(token)).isTrue();
        for (int lane = 0; lane < SlotTable.STRIPES; lane++) {
            rl.table().plantLane(lane, token, 7); // every lane held by a process that has ended, 7 counted in each
        }
        assertThat(rl.stats().allowed()).isEqualTo(16L * 7);

        crowd("one", 1, 3); // no free lane: the thread takes over the dead process's first lane
        assertThat(rl.stats().allowed()).isEqualTo(16L * 7 + 2);
        assertThat(rl.stats().denied()).isEqualTo(1L);
        assertThat(rl.table().lanesHeld()).as("the lane taken over went back to the carve when its thread ended").isEqualTo(15);
    }

    @Test
    void aLaneHeldByALiveProcessIsNeverWritten() throws Exception {
        Process alive = new ProcessBuilder("sleep", "60").start();
        try {
            long token = alive.pid() << 32 | 0x1357_9BDFL;
            assertThat(SlotTable.ended(token)).isFalse();
            for (int lane = 0; lane < SlotTable.STRIPES; lane++) {
                rl.table().plantLane(lane, token, 5);
            }
            crowd("four", 4, 100); // no lane to be had: every count is an atomic add on a stripe
            assertThat(rl.stats().allowed()).isEqualTo(16L * 5 + 4 * 2);
            assertThat(rl.stats().denied()).isEqualTo(4L * 98);
            assertThat(rl.table().lanesHeld()).isEqualTo(16);
            for (int lane = 0; lane < SlotTable.STRIPES; lane++) {
                assertThat(rl.table().laneHolder(lane)).as("lane %d", lane).isEqualTo(token);
            }
        } finally {
            alive.destroyForcibly();
        }
    }

    @Test
    void garbageHolderWordsInTheFileNeitherFailNorStopCounting() throws InterruptedException {
        long[] garbage = {-1L, 1L, 0xFFFF_FFFF_0000_0000L, Long.MIN_VALUE, 0x7FFF_FFFF_FFFF_FFFFL, 0x0000_0001_0000_0000L,
            0xDEAD_BEEF_DEAD_BEEFL, 42L << 32 | 7, 0x8000_0000_0000_0001L, 3L, 0x0000_FFFF_FFFF_FFFFL, 0x1234_5678_9ABC_DEF0L,
            -2L, 0xFFFF_FFFE_FFFF_FFFFL, 0x0000_0000_FFFF_FFFFL, 0x4000_0000_0000_0000L};
        for (int lane = 0; lane < SlotTable.STRIPES; lane++) { // a corrupted file: a holder word and a count in each lane
            rl.table().plantLane(lane, garbage[lane], 1);
            SlotTable.ended(garbage[lane]); // any word: an answer, never an exception
        }
        crowd("garbage", 8, 50); // each thread takes over a lane whose holder looks ended, or counts atomically
        assertThat(rl.stats().allowed()).isEqualTo(16L + 8 * 2);
        assertThat(rl.stats().denied()).isEqualTo(8L * 48);
    }

    @Test
    void anEarlierProcessWithThisPidHasEndedAndThisOneHasNot() {
        long mine = SlotTable.laneToken();
        assertThat(mine >>> 32).isEqualTo(ProcessHandle.current().pid());
        assertThat(SlotTable.ended(mine)).isFalse();
        assertThat(SlotTable.ended(mine ^ 2L)).as("same pid, another nonce").isTrue();
    }
}

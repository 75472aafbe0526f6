package org.sluice.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.ManualClock;

/**
 * {@link PreReadLimits#sourceBytesWait} is the check of a declared length before the body:
 * it must answer exactly what the charge would answer at that moment, and charge nothing.
 * A fixed-seed random walk of body sizes (small, around the burst, oversized) and clock
 * steps, over {@link NodeLimits} and over {@link HostLimits} on a real arena file.
 */
class SourceBytesWaitTest {

    @TempDir
    Path dir;

    @Test
    void inThisNodesMemoryTheCheckAnswersExactlyWhatTheChargeWouldAndChargesNothing() {
        walk(new NodeLimits(Optional.empty(), Optional.empty(), Map.of("a", 1000L)));
    }

    @Test
    void inTheHostArenaTheCheckAnswersExactlyWhatTheChargeWouldAndChargesNothing() {
        try (HostArena arena = HostArena.open(dir.resolve("arena"), null, new ManualClock(0))) {
            walk(new HostLimits(arena, Optional.empty(), Optional.empty(), Map.of("a", 1000L)));
        }
    }

    private static void walk(PreReadLimits limits) {
        SplittableRandom random = new SplittableRandom(11);
        long now = 1_000_000_000_000L;
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            long bytes = switch (random.nextInt(4)) {
                case 0 -> 1 + random.nextInt(50);
                case 1 -> 1 + random.nextInt(1000);
                case 2 -> 900 + random.nextInt(200);
                default -> 1000 + random.nextInt(5000); // oversized: only into a full bucket
            };
            long checked = limits.sourceBytesWait("a", bytes, now);
            assertThat(limits.sourceBytesWait("a", bytes, now)).as("a check charges nothing").isEqualTo(checked);
            long charged = limits.chargeSourceBytes("a", bytes, now);
            assertThat(charged).as("step %d, %d bytes", i, bytes).isEqualTo(checked);
            if (charged == 0) {
                admitted++;
            } else {
                refused++;
            }
            now += random.nextInt(4) == 0 ? random.nextLong(2_000_000_000L) : random.nextLong(1_000_000L);
        }
        assertThat(admitted).isPositive();
        assertThat(refused).isPositive();
        assertThat(limits.sourceBytesWait("unknown", 1_000_000, now)).as("a source without a byte limit").isZero();
    }
}

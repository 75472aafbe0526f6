package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The bands' shortcuts against what they replace: the increment worked out from a bound
 * made once at build time, and the slot widths of the keyed table.
 */
class BandsTest {

    @Test
    void theIncrementWithoutADivisionIsGcrasIncrementAtEveryCostUpToTheSmallestBurst() {
        // intervals from 1 ns to the saturated one, bursts from 1 to the largest a Limit takes
        double[] rates = {1e9, 1e9 / 3, 1000, 1e-3, 1e-9, 1e-12, 1e-300};
        int[] bursts = {1, 7, 1000, Integer.MAX_VALUE};
        for (double rate : rates) {
            for (int burst : bursts) {
                Limit limit = Limit.of(rate, burst);
                Bands bands = new Bands(List.of(limit));
                for (long cost : costsUpTo(burst)) {
                    assertThat(bands.increment(0, cost)).as("rate %s, burst %s, cost %s", rate, burst, cost)
                            .isEqualTo(Gcra.increment(limit.intervalNanos(), cost));
                }
            }
        }
    }

    /** 1, the burst, and the costs on either side of where the product saturates for a few intervals. */
    private static long[] costsUpTo(int burst) {
        return LongStream.of(1, 2, 3, 999, 1000, 1001, burst - 1L, burst)
                .filter(c -> c >= 1 && c <= burst).distinct().toArray();
    }

    @Test
    void theChargeOfTwoBandwidthsIsTheLargerWaitAndChargesBothOrNeither() {
        // 10 a second in bursts of 2 (T 100 ms, tau 200 ms), and 1 a second in bursts of 3 (T 1 s, tau 3 s)
        Bands bands = new Bands(List.of(Limit.of(10, 2), Limit.of(1, 3)));
        long ms = 1_000_000L;
        long[] row = {7, 7, 0, 0, 7};
        bands.fill(row, 2, 0L);
        assertThat(bands.charge(row, 2, 2, 0L, 0L)).isZero();
        assertThat(row).containsExactly(7, 7, 200 * ms, 2000 * ms, 7);
        // the first has none left for 100 ms, the second one permit's worth: the first's wait binds
        assertThat(bands.charge(row, 2, 1, 0L, 0L)).isEqualTo(100 * ms);
        assertThat(row).as("a refusal writes nothing").containsExactly(7, 7, 200 * ms, 2000 * ms, 7);
        // a reservation within its wait charges both, the first from its debt, not from now
        assertThat(bands.charge(row, 2, 1, 100 * ms, 0L)).isEqualTo(100 * ms);
        assertThat(row).containsExactly(7, 7, 300 * ms, 3000 * ms, 7);
    }

    @Test
    void aKeyedSlotIsHalfOrAWholeLineWhileItFitsInOne() {
        assertThat(KeyedTable.slotWords(1)).isEqualTo(4);
        assertThat(KeyedTable.slotWords(2)).isEqualTo(4);
        assertThat(KeyedTable.slotWords(3)).isEqualTo(8);
        assertThat(KeyedTable.slotWords(6)).isEqualTo(8);
        assertThat(KeyedTable.slotWords(7)).isEqualTo(9);
        // 16 bytes of header, then FIRST words: slot 0 starts 64 bytes into the array
        assertThat(16 + 8 * KeyedTable.FIRST).isEqualTo(64);
    }
}

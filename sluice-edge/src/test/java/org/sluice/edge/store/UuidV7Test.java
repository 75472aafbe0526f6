package org.sluice.edge.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    /** A Random whose bits are all ones: a fresh millisecond starts as high as it may. */
    private static final class AllOnes extends Random {
        @Override
        public int nextInt(int bound) {
            return bound - 1;
        }

        @Override
        public long nextLong() {
            return -1L;
        }
    }

    @Test
    void idsIncreaseWithinAMillisecondAndWhenTheClockStepsBack() {
        UuidV7 gen = new UuidV7(new Random(7));
        UUID a = gen.next(1000);
        UUID b = gen.next(1000);
        UUID c = gen.next(999);
        UUID d = gen.next(1001);
        assertThat(a.toString()).isLessThan(b.toString());
        assertThat(b.toString()).isLessThan(c.toString());
        assertThat(c.toString()).isLessThan(d.toString());
        assertThat(UuidV7.millisOf(c)).as("a step back keeps the last millisecond").isEqualTo(1000);
        assertThat(a.version()).isEqualTo(7);
        assertThat(a.variant()).isEqualTo(2);
    }

    @Test
    void aFreshMillisecondLeavesHalfTheCounterFree() {
        UuidV7 gen = new UuidV7(new AllOnes());
        UUID first = gen.next(5);
        assertThat(first.getMostSignificantBits() & 0xFFF).isEqualTo(0x7FF);
        assertThat(first.getLeastSignificantBits() & ((1L << 62) - 1)).isEqualTo((1L << 62) - 1);
        UUID next = gen.next(5);
        assertThat(next.getMostSignificantBits() & 0xFFF).as("rand_b carried into rand_a").isEqualTo(0x800);
        assertThat(next.getLeastSignificantBits() & ((1L << 62) - 1)).isZero();
        assertThat(next.toString()).isGreaterThan(first.toString());
    }

    @Test
    void continuesAfterAStoredId() {
        UuidV7 earlier = new UuidV7(new Random(1));
        UUID stored = earlier.next(2_000);
        UuidV7 gen = new UuidV7(new Random(2));
        gen.continueAfter(stored);
        UUID next = gen.next(1_500); // the clock is behind the stored id
        assertThat(next.toString()).isGreaterThan(stored.toString());
        assertThat(UuidV7.millisOf(next)).isEqualTo(2_000);
    }
}

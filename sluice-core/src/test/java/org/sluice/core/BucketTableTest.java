package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BucketTableTest {

    private static final long T = 1_000L;      // emission interval, ns
    private static final long TAU = 5 * T;     // burst 5
    private static final long START = 1_000_000_000L;

    private final BucketTable table = new BucketTable();

    @Test
    void fromFullExactlyBurstBackToBackThenOnePerInterval() {
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge("k", T, TAU, START)).as("charge %d", i).isZero();
        }
        assertThat(table.tryCharge("k", T, TAU, START)).isEqualTo(T);
        assertThat(table.tryCharge("k", T, TAU, START + T - 1)).isEqualTo(1L);
        assertThat(table.tryCharge("k", T, TAU, START + T)).isZero();
        assertThat(table.tryCharge("k", T, TAU, START + T)).isEqualTo(T);
    }

    @Test
    void keysWithDifferentLimitsShareOneTable() {
        long slowT = 1_000_000L;
        long slowTau = 2 * slowT;            // burst 2 at 1000/s
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge("fast", T, TAU, START)).isZero();
        }
        assertThat(table.tryCharge("slow", slowT, slowTau, START)).isZero();
        assertThat(table.tryCharge("slow", slowT, slowTau, START)).isZero();
        assertThat(table.tryCharge("slow", slowT, slowTau, START)).isEqualTo(slowT);
        assertThat(table.tryCharge("fast", T, TAU, START)).isEqualTo(T);
        assertThat(table.remaining("slow", slowT, slowTau, START + slowT / 2)).isEqualTo(0.5);
    }

    @Test
    void denialWritesNothing() {
        for (int i = 0; i < 5; i++) {
            table.tryCharge("k", T, TAU, START);
        }
        for (int i = 0; i < 100; i++) {
            assertThat(table.tryCharge("k", T, TAU, START)).isEqualTo(T);
            assertThat(table.tryCharge("k", 3 * T, TAU, START)).isEqualTo(3 * T);
        }
        assertThat(table.remaining("k", T, TAU, START + T)).isEqualTo(1.0);
        assertThat(table.tryCharge("k", T, TAU, START + T)).isZero();
    }

    @Test
    void oversizedChargeIsAdmittedOnlyIntoAFullBucketAndEmptiesIt() {
        assertThat(table.tryCharge("k", 7 * T, TAU, START)).isZero();
        assertThat(table.remaining("k", T, TAU, START)).isZero();
        // exactly empty, no debt beyond: one interval later there is room for one
        assertThat(table.tryCharge("k", T, TAU, START)).isEqualTo(T);
        assertThat(table.tryCharge("k", 7 * T, TAU, START + 2 * T)).isEqualTo(3 * T);
        assertThat(table.tryCharge("k", 7 * T, TAU, START + 5 * T)).isZero();
    }

    @Test
    void remainingIsFractionalAndFullForAnUnknownKey() {
        assertThat(table.remaining("nobody", T, TAU, START)).isEqualTo(5.0);
        table.tryCharge("k", 2 * T, TAU, START);
        assertThat(table.remaining("k", T, TAU, START)).isEqualTo(3.0);
        assertThat(table.remaining("k", T, TAU, START + T / 2)).isEqualTo(3.5);
        assertThat(table.remaining("k", T, TAU, START + 10 * T)).isEqualTo(5.0);
    }

    @Test
    void resetRefillsToFullAndRemovesTheRow() {
        for (int i = 0; i < 5; i++) {
            table.tryCharge("k", T, TAU, START);
        }
        assertThat(table.size()).isEqualTo(1);
        table.reset("k");
        table.reset("never-seen");
        assertThat(table.size()).isZero();
        assertThat(table.remaining("k", T, TAU, START)).isEqualTo(5.0);
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge("k", T, TAU, START)).isZero();
        }
        assertThat(table.tryCharge("k", T, TAU, START)).isEqualTo(T);
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void aSweepCycleDeletesOnlyFullRows() {
        table.tryCharge("short", T, TAU, START);          // tat = START + T
        table.tryCharge("long", 5 * T, TAU, START);       // tat = START + 5T
        assertThat(table.shards()).isEqualTo(16);
        int removed = 0;
        for (int i = 0; i < table.shards(); i++) {
            removed += table.sweepNext(START + T);
        }
        assertThat(removed).isEqualTo(1);
        assertThat(table.swept()).isEqualTo(1L);
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.remaining("long", T, TAU, START + T)).isEqualTo(1.0);
        assertThat(table.remaining("short", T, TAU, START + T)).isEqualTo(5.0);
    }

    @Test
    void theSweepDeletesARowWhoseTatIsNowButNotOneNanosecondLater() {
        table.tryCharge("due", T, TAU, START);             // tat = START + T
        table.tryCharge("owing", T, TAU, START + 1);       // tat = START + T + 1
        for (int i = 0; i < 16; i++) {
            table.sweepNext(START + T);
        }
        assertThat(table.swept()).isEqualTo(1L);
        assertThat(table.remaining("owing", T, TAU, START + T)).isEqualTo(4.999);
    }

    @Test
    void aSweptKeyComesBackAsAFullBucket() {
        table.tryCharge("k", 5 * T, TAU, START);
        for (int i = 0; i < 16; i++) {
            table.sweepNext(START + 5 * T);
        }
        assertThat(table.size()).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge("k", T, TAU, START + 5 * T)).isZero();
        }
        assertThat(table.tryCharge("k", T, TAU, START + 5 * T)).isEqualTo(T);
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void staleReadingAfterASweepDoesNotRefillTheBucketEarly() {
        // the row (tat = START + 5T) is swept at START + 5T; a charger whose clock reading
        // (START) predates that sweep must not see a bucket fuller than the row it lost
        table.tryCharge("k", 5 * T, TAU, START);
        for (int i = 0; i < 16; i++) {
            table.sweepNext(START + 5 * T);
        }
        assertThat(table.tryCharge("k", T, TAU, START)).isEqualTo(T);
        assertThat(table.remaining("k", T, TAU, START)).isZero();
    }

    @Test
    void growsThroughManyKeysAndKeepsEveryBucket() {
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            assertThat(table.tryCharge("key-" + i, (1 + i % 5) * T, TAU, START)).isZero();
        }
        assertThat(table.size()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(table.remaining("key-" + i, T, TAU, START)).isEqualTo(4.0 - i % 5);
        }
    }

    @Test
    void sweepingEverythingShrinksTheArraysBackToTheMinimum() {
        BucketTable t = new BucketTable();
        long minimum = t.capacity();
        for (int i = 0; i < 100_000; i++) {
            t.tryCharge("key-" + i, T, TAU, START);
        }
        assertThat(t.capacity()).isGreaterThan(100_000L);
        for (int i = 0; i < 16; i++) {
            t.sweepNext(START + T);
        }
        assertThat(t.size()).isZero();
        assertThat(t.swept()).isEqualTo(100_000L);
        assertThat(t.capacity()).isEqualTo(minimum);
    }

    @Test
    void tatLandingOnAReservedWordIsStoredTwoNanosLaterNotLost() {
        long now = Long.MIN_VALUE - T; // wraps: now + T == Long.MIN_VALUE, the DEAD word
        assertThat(table.tryCharge("k", T, TAU, now)).isZero();
        assertThat(table.size()).isEqualTo(1);
        // the bucket holds one charge plus 2 ns: three more fit, the next waits those 2 ns
        for (int i = 0; i < 3; i++) {
            assertThat(table.tryCharge("k", T, TAU, now)).isZero();
        }
        assertThat(table.tryCharge("k", T, TAU, now)).isEqualTo(2L);
    }

    @Test
    void clockReadingsThatWrapAroundBehave() {
        long now = Long.MAX_VALUE - 2 * T;
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge("k", T, TAU, now)).isZero();
        }
        assertThat(table.tryCharge("k", T, TAU, now)).isEqualTo(T);
        assertThat(table.tryCharge("k", T, TAU, now + 5 * T)).isZero(); // now + 5T wrapped negative
    }

    @Test
    void negativePolicyIsRefusedNamingItAndWritesNothing() {
        assertThatThrownBy(() -> table.tryCharge("k", -1, TAU, START))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("increment must be at least 0, got -1");
        assertThatThrownBy(() -> table.tryCharge("k", T, -5, START))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tolerance must be at least 0, got -5");
        assertThat(table.size()).isZero();
    }

    @Test
    void negativeCapacityHintIsRefusedNamingIt() {
        assertThatThrownBy(() -> new BucketTable(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialCapacityHint must be at least 0, got -1");
    }

    @Test
    void capacityHintPresizesTheShards() {
        BucketTable t = new BucketTable(1_000_000);
        long before = t.capacity();
        assertThat(before).isGreaterThanOrEqualTo(4_000_000L / 3);
        for (int i = 0; i < 1_000; i++) {
            t.tryCharge("key-" + i, T, TAU, START);
        }
        assertThat(t.capacity()).isEqualTo(before);
    }

    @Test
    void aChargeLandingBetweenTheSweepsReadAndItsDeleteIsKept() {
        long[] chargedInWindow = {-1};
        BucketTable[] holder = new BucketTable[1];
        BucketTable t = new BucketTable(0, key -> {
            if (key.equals("k") && chargedInWindow[0] < 0) {
                chargedInWindow[0] = holder[0].tryCharge("k", T, TAU, START + T); // lock-free, lands first
            }
        });
        holder[0] = t;
        t.tryCharge("k", T, TAU, START);                   // tat = START + T: full at START + T
        for (int i = 0; i < 16; i++) {
            t.sweepNext(START + T);
        }
        assertThat(chargedInWindow[0]).isZero();
        assertThat(t.swept()).isZero();
        assertThat(t.size()).isEqualTo(1);
        // the charge made in the window is still in the bucket: four more fit, not five
        for (int i = 0; i < 4; i++) {
            assertThat(t.tryCharge("k", T, TAU, START + T)).isZero();
        }
        assertThat(t.tryCharge("k", T, TAU, START + T)).isEqualTo(T);
    }
}

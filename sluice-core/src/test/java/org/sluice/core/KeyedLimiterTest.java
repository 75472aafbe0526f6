package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The keyed limiter on a manual clock: exact counts per key, every key type, every way of asking. */
class KeyedLimiterTest {

    private static final long MS = 1_000_000L;

    private final TestClock clock = new TestClock(-3L);
    private final ClockSleeper sleeper = new ClockSleeper(clock);
    private final List<Long> sleeps = sleeper.sleeps;

    private <K> KeyedLimiter<K> limiter(Limit... bandwidths) {
        KeyedLimiter.Builder<K> b = KeyedLimiter.<K>builder().clock(clock).sweepInterval(Duration.ZERO).sleeper(sleeper);
        List.of(bandwidths).forEach(b::bandwidth);
        return b.build();
    }

    @Test
    void eachKeyHasItsOwnBucketOfEveryBandwidth() {
        // 10 per second in bursts of 5, and 2 per second in bursts of 8
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 5), Limit.of(2, 8));
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("a")).isZero();
        }
        assertThat(limiter.tryAcquire("a")).as("the first bandwidth's burst is spent").isEqualTo(100 * MS);
        assertThat(limiter.tryAcquire("b", 5)).as("another key is untouched").isZero();
        clock.advanceMillis(300);
        // the first refilled 3; the second holds 8 - 5 + 0.6: 3
        assertThat(limiter.remaining("a")).isEqualTo(3L);
        assertThat(limiter.tryAcquire("a", 3)).isZero();
        // the second is left 0.6 permits: its wait binds now (0.4 of 500 ms)
        assertThat(limiter.tryAcquire("a")).isEqualTo(200 * MS);
    }

    @Test
    void aRefusalChargesNoBandwidthAndMakesNoRow() {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 5), Limit.of(1, 3));
        assertThat(limiter.tryAcquire("a", 3)).isZero();
        assertThat(limiter.tryAcquire("a", 2)).as("the second bandwidth has none left").isEqualTo(2000 * MS);
        assertThat(limiter.remaining("a")).isZero();
        clock.advanceMillis(1000);
        assertThat(limiter.remaining("a")).as("the refusal charged neither: the second refilled one").isEqualTo(1L);
        assertThat(limiter.keys()).isEqualTo(1);
        assertThatThrownBy(() -> limiter.tryAcquire("c", 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("smallest burst").hasMessageContaining("got 4");
        assertThat(limiter.keys()).isEqualTo(1);
    }

    @Test
    void theProbeAnswersRemainingWaitAndResetFromOneStep() {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 5), Limit.of(1, 20));
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire("a", 4, probe)).isTrue();
        assertThat(probe.admitted()).isTrue();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isZero();
        // full again when the slower bandwidth has paid off its 4 s
        assertThat(probe.resetNanos()).isEqualTo(4000 * MS);
        assertThat(limiter.tryAcquire("a", 2, probe)).isFalse();
        assertThat(probe.remaining()).isEqualTo(1L);
        assertThat(probe.waitNanos()).isEqualTo(100 * MS);
        assertThat(probe.resetNanos()).isEqualTo(4000 * MS);
        assertThat(limiter.tryAcquire("fresh", 1, probe)).isTrue();
        assertThat(probe.remaining()).isEqualTo(4L);
        assertThat(probe.resetNanos()).isEqualTo(1000 * MS);
    }

    @Test
    void longKeysAndLongObjectsAreTheSameKey() {
        KeyedLimiter<Long> limiter = limiter(Limit.of(1, 3));
        Probe probe = new Probe();
        assertThat(limiter.tryAcquire(42L, 2)).isZero();
        assertThat(limiter.tryAcquire(Long.valueOf(42L))).as("the boxed key is the primitive one").isZero();
        assertThat(limiter.tryAcquire(42L, 1, probe)).isFalse();
        assertThat(probe.waitNanos()).isEqualTo(1000 * MS);
        assertThat(limiter.remaining(42L)).isZero();
        assertThat(limiter.tryAcquire(43L, 3)).isZero();
        assertThat(limiter.tryAcquire(-42L, 3)).isZero();
        limiter.reset(42L);
        assertThat(limiter.remaining(42L)).isEqualTo(3L);
        assertThat(limiter.keys()).isEqualTo(3);
    }

    @Test
    void byteArrayKeysAreComparedByContentAndCopied() {
        KeyedLimiter<byte[]> limiter = limiter(Limit.of(1, 2));
        byte[] buffer = "tenant-a".getBytes(StandardCharsets.UTF_8);
        assertThat(limiter.tryAcquire(buffer, 2)).isZero();
        assertThat(limiter.tryAcquire("tenant-a".getBytes(StandardCharsets.UTF_8))).as("equal content, same key").isPositive();
        buffer[0] = 'T'; // the caller reuses its array: the row kept its own copy
        assertThat(limiter.tryAcquire(buffer, 2)).as("new content, a new key").isZero();
        assertThat(limiter.tryAcquire("tenant-a".getBytes(StandardCharsets.UTF_8))).isPositive();
        assertThat(limiter.keys()).isEqualTo(2);
    }

    record Tenant(String org, int id) {
    }

    @Test
    void anyTypeWithEqualsAndHashCodeIsAKey() {
        KeyedLimiter<Tenant> limiter = limiter(Limit.of(1, 1));
        assertThat(limiter.tryAcquire(new Tenant("x", 1))).isZero();
        assertThat(limiter.tryAcquire(new Tenant("x", 1))).isPositive();
        assertThat(limiter.tryAcquire(new Tenant("x", 2))).isZero();
    }

    @Test
    void acquireWaitsTheKeysWaitAndGivesUpWhenItDoesNotFit() throws InterruptedException {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 2));
        assertThat(limiter.tryAcquire("a", 2)).isZero();
        assertThat(limiter.acquire("a", 1, Duration.ofMillis(100).minusNanos(1))).isFalse();
        assertThat(sleeps).isEmpty();
        assertThat(limiter.acquire("a", 2, Duration.ofSeconds(1))).isTrue();
        assertThat(sleeps).containsExactly(200 * MS);
        assertThat(limiter.acquire("b", 2, Duration.ZERO)).as("another key does not wait").isTrue();
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void reserveTakesIntoDebtAndLaterCallsQueueBehindIt() {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 2));
        assertThat(limiter.reserve("a", 2)).isZero();
        assertThat(limiter.reserve("a", 2)).isEqualTo(200 * MS);
        assertThat(limiter.tryAcquire("a")).isEqualTo(300 * MS);
        clock.advanceMillis(300);
        assertThat(limiter.tryAcquire("a")).isZero();
    }

    @Test
    void aSweepDeletesOnlyRowsFullOnEveryBandwidth() {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 1), Limit.of(1, 5));
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.tryAcquire("k" + i)).isZero();
        }
        clock.advanceMillis(100); // the first bandwidth is full again, the second is not
        assertThat(sweepAll(limiter)).isZero();
        assertThat(limiter.keys()).isEqualTo(1000);
        clock.advanceMillis(900);
        assertThat(sweepAll(limiter)).isEqualTo(1000);
        assertThat(limiter.keys()).isZero();
        assertThat(limiter.remaining("k1")).isEqualTo(1L);
    }

    @Test
    void aSweepInPlaceKeepsEveryRowItLeavesFindable() {
        KeyedLimiter<Long> limiter = limiter(Limit.of(10, 3));
        for (long k = 0; k < 4000; k++) {
            assertThat(limiter.tryAcquire(k, k % 2 == 0 ? 3 : 1)).isZero();
        }
        clock.advanceMillis(100); // odd keys are full again; even keys owe 200 ms
        assertThat(sweepAll(limiter)).isEqualTo(2000);
        assertThat(limiter.keys()).isEqualTo(2000);
        for (long k = 0; k < 4000; k++) {
            assertThat(limiter.remaining(k)).as("key %d", k).isEqualTo(k % 2 == 0 ? 1L : 3L);
        }
        clock.advanceMillis(200);
        assertThat(sweepAll(limiter)).isEqualTo(2000);
        assertThat(limiter.keys()).isZero();
        assertThat(limiter.tryAcquire(7L, 3)).as("the emptied table takes new rows").isZero();
    }

    @Test
    void longStringAndByteArrayKeysKeepTheirRowsThroughGrowthSweepAndChange() {
        KeyedLimiter<Object> limiter = limiter(Limit.of(10, 3));
        int n = 3000;
        for (int k = 0; k < n; k++) {
            long cost = k % 2 == 0 ? 3 : 1;
            assertThat(limiter.tryAcquire((long) k, cost)).isZero();
            assertThat(limiter.tryAcquire("s" + k, cost)).isZero();
            assertThat(limiter.tryAcquire(("b" + k).getBytes(StandardCharsets.UTF_8), cost)).isZero();
        }
        assertThat(limiter.keys()).isEqualTo(3 * n);
        clock.advanceMillis(100); // odd keys are full again; even keys owe 200 ms
        assertThat(sweepAll(limiter)).isEqualTo(3 * n / 2);
        limiter.replaceBandwidths(List.of(Limit.of(10, 3), Limit.of(1, 2)), LimitChange.KEEP_REMAINING);
        for (int k = 0; k < n; k++) {
            long left = k % 2 == 0 ? 1L : 2L; // the new second bandwidth starts full, 2
            assertThat(limiter.remaining((long) k)).as("long %d", k).isEqualTo(left);
            assertThat(limiter.remaining("s" + k)).as("String %d", k).isEqualTo(left);
            assertThat(limiter.remaining(("b" + k).getBytes(StandardCharsets.UTF_8))).as("byte[] %d", k).isEqualTo(left);
        }
        clock.advanceMillis(200);
        assertThat(sweepAll(limiter)).isEqualTo(3 * n / 2);
        assertThat(limiter.keys()).isZero();
    }

    @Test
    void consecutiveLongIdsSitNearTheirHomeSlots() {
        KeyedLimiter<Long> limiter = limiter(Limit.of(10, 3));
        int n = 100_000;
        for (long k = 0; k < n; k++) {
            assertThat(limiter.tryAcquire(k, 1)).isZero();
        }
        // random homes at these loads walk about 0.3 to 1.5 slots past home a lookup; a hash
        // whose low bits follow its high ones walked 4.2 for these keys
        assertThat(limiter.displacement()).isLessThan(n);
    }

    private static int sweepAll(KeyedLimiter<?> limiter) {
        int n = 0;
        for (int s = 0; s < KeyedTable.SHARDS; s++) {
            n += limiter.sweepTick();
        }
        return n;
    }

    @Test
    void aCallerWithAReadingOlderThanTheSweepFindsNoMoreRoomThanTheRowHad() {
        AtomicLong reading = new AtomicLong(0L);
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder().bandwidth(Limit.of(1, 1))
                .clock(reading::get).sweepInterval(Duration.ZERO).build();
        assertThat(limiter.tryAcquire("a")).isZero(); // the row's tat: 1 s
        reading.set(1000 * MS);
        assertThat(sweepAll(limiter)).isEqualTo(1);
        // a caller that read the clock at 0.5 s, before the sweep: the row it finds gone was 0.5 s in debt to it
        reading.set(500 * MS);
        assertThat(limiter.tryAcquire("a")).isEqualTo(500 * MS);
    }

    @Test
    void replacingTheBandwidthsKeepsEachKeysStateAsAsked() {
        KeyedLimiter<String> limiter = limiter(Limit.of(10, 10));
        assertThat(limiter.tryAcquire("a", 3)).isZero(); // 7 left of 10
        assertThat(limiter.tryAcquire("b", 10)).isZero(); // 0 left of 10
        limiter.replaceBandwidths(List.of(Limit.of(20, 20)), LimitChange.KEEP_REMAINING);
        assertThat(limiter.bandwidths()).containsExactly(Limit.of(20, 20));
        assertThat(limiter.remaining("a")).isEqualTo(7L);
        assertThat(limiter.remaining("b")).isZero();
        assertThat(limiter.remaining("never")).isEqualTo(20L);
        limiter.replaceBandwidths(List.of(Limit.of(10, 10)), LimitChange.PROPORTIONAL);
        assertThat(limiter.remaining("a")).as("7 of 20 is 3.5 of 10, rounded down").isEqualTo(3L);
        limiter.replaceBandwidths(List.of(Limit.of(10, 10), Limit.of(1, 2)), LimitChange.KEEP_REMAINING);
        assertThat(limiter.remaining("a")).as("a new second bandwidth starts full and binds").isEqualTo(2L);
        limiter.replaceBandwidths(List.of(Limit.of(10, 10)), LimitChange.RESET);
        assertThat(limiter.remaining("a")).isEqualTo(10L);
        assertThat(limiter.remaining("b")).isEqualTo(10L);
    }

    @Test
    void builderAndArgumentErrorsNameTheField() {
        assertThatThrownBy(() -> KeyedLimiter.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at least one bandwidth");
        KeyedLimiter<String> limiter = limiter(Limit.of(1, 2));
        assertThatThrownBy(() -> limiter.tryAcquire("a", 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0");
        assertThatThrownBy(() -> limiter.tryAcquire((String) null)).isInstanceOf(NullPointerException.class).hasMessageContaining("key");
        assertThatThrownBy(() -> limiter.acquire("a", 1, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> limiter.replaceBandwidths(List.of(), LimitChange.RESET))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at least one bandwidth");
    }
}

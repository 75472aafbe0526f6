package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/** Every method of {@link SharedRate}, with a manual clock so values are exact. */
class SharedRateTest {

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(5_000_000_000_000L);
    private SharedArena arena;
    private SharedRate rl; // 5 per 10 s: interval 2 s

    @BeforeEach
    void open() {
        arena = SharedArena.create(files.fresh(), 1 << 20);
        rl = arena.rate("api", 5, Duration.ofSeconds(10), 64, clock);
    }

    @AfterEach
    void close() throws Exception {
        arena.close();
        files.close();
    }

    @Test
    void allowsTheLimitAtOnceThenRefuses() {
        for (int i = 0; i < 5; i++) {
            assertThat(rl.allow("k")).as("request %d", i + 1).isTrue();
        }
        assertThat(rl.allow("k")).isFalse();
        assertThat(rl.allow("k")).isFalse();
        SharedRate.Stats s = rl.stats();
        assertThat(s.allowed()).isEqualTo(5);
        assertThat(s.denied()).isEqualTo(2);
    }

    @Test
    void refillsContinuouslyNotByWindow() {
        for (int i = 0; i < 5; i++) {
            rl.allow("k");
        }
        clock.advance(Duration.ofMillis(1999));
        assertThat(rl.allow("k")).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(rl.allow("k")).isTrue();
        assertThat(rl.allow("k")).isFalse();
        clock.advance(Duration.ofSeconds(4));
        assertThat(rl.allow("k")).isTrue();
        assertThat(rl.allow("k")).isTrue();
        assertThat(rl.allow("k")).isFalse();
    }

    @Test
    void remainingIsExactAndSpendsNothing() {
        assertThat(rl.remaining("k")).isEqualTo(5.0);
        rl.allow("k");
        rl.allow("k");
        assertThat(rl.remaining("k")).isEqualTo(3.0);
        assertThat(rl.remaining("k")).isEqualTo(3.0);
        clock.advance(Duration.ofMillis(500));
        assertThat(rl.remaining("k")).isEqualTo(3.25);
        rl.allow("k", 3);
        assertThat(rl.remaining("k")).isEqualTo(0.25);
        clock.advance(Duration.ofSeconds(100));
        assertThat(rl.remaining("k")).isEqualTo(5.0);
    }

    @Test
    void retryAfterIsExact() {
        assertThat(rl.retryAfter("k")).isZero();
        for (int i = 0; i < 5; i++) {
            rl.allow("k");
        }
        assertThat(rl.retryAfter("k")).isEqualTo(2.0);
        clock.advance(Duration.ofMillis(750));
        assertThat(rl.retryAfter("k")).isEqualTo(1.25);
        clock.advance(Duration.ofMillis(1250));
        assertThat(rl.retryAfter("k")).isZero();
        assertThat(rl.stats().allowed()).as("reading spends nothing").isEqualTo(5);
    }

    @Test
    void costTakesThatManyTokens() {
        assertThat(rl.allow("k", 3)).isTrue();
        assertThat(rl.remaining("k")).isEqualTo(2.0);
        assertThat(rl.allow("k", 3)).isFalse();
        assertThat(rl.retryAfter("k")).isZero(); // one more would be fine
        assertThat(rl.allow("k", 2)).isTrue();
        assertThat(rl.allow("k", 1)).isFalse();
    }

    @Test
    void costAboveTheLimitFitsOnlyAFullBucketAndEmptiesIt() {
        rl.allow("k");
        assertThat(rl.allow("k", 6)).isFalse();
        clock.advance(Duration.ofSeconds(2));
        assertThat(rl.allow("k", 6)).isTrue();
        assertThat(rl.remaining("k")).isZero();
    }

    @Test
    void costMustBePositive() {
        assertThatThrownBy(() -> rl.allow("k", 0)).isInstanceOf(IllegalArgumentException.class).hasMessage("cost must be at least 1, got 0");
        assertThatThrownBy(() -> rl.allow("k".getBytes(StandardCharsets.UTF_8), -2)).hasMessage("cost must be at least 1, got -2");
    }

    @Test
    void resetRefillsToFull() {
        for (int i = 0; i < 5; i++) {
            rl.allow("k");
        }
        rl.reset("k");
        assertThat(rl.remaining("k")).isEqualTo(5.0);
        assertThat(rl.allow("k")).isTrue();
        rl.reset("k".getBytes(StandardCharsets.UTF_8));
        assertThat(rl.remaining("k")).isEqualTo(5.0);
        rl.reset("never-seen"); // absent is already full
        assertThat(rl.remaining("never-seen")).isEqualTo(5.0);
    }

    @Test
    void forgetGivesTheSlotBack() {
        rl.allow("k");
        rl.allow("other");
        assertThat(rl.stats().keys()).isEqualTo(2);
        rl.forget("k");
        assertThat(rl.stats().keys()).isEqualTo(1);
        assertThat(rl.remaining("k")).isEqualTo(5.0);
        long slotWord = rl.table().word(rl.table().homeSlot(rl.hash("k")));
        assertThat(BucketWord.fingerprintOf(slotWord)).isNotEqualTo(BucketWord.fingerprint(rl.hash("k")));
        rl.forget("other".getBytes(StandardCharsets.UTF_8));
        assertThat(rl.stats().keys()).isZero();
    }

    @Test
    void stringAndUtf8BytesAreTheSameKey() {
        String key = "203.0.113.7/ünïcødé/\uD83D\uDE00";
        rl.allow(key, 2);
        assertThat(rl.remaining(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(3.0);
        rl.allow(key.getBytes(StandardCharsets.UTF_8), 3);
        assertThat(rl.allow(key)).isFalse();
        assertThat(rl.retryAfter(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(2.0);
        assertThat(rl.allow("another")).isTrue();
    }

    @Test
    void statsRecord() {
        rl.allow("a");
        rl.allow("b", 5);
        rl.allow("b");
        clock.advance(Duration.ofSeconds(2)); // "a" is full again, "b" still owes
        SharedRate.Stats s = rl.stats();
        assertThat(s).isEqualTo(new SharedRate.Stats(5, Duration.ofSeconds(10), 64, 1, 2, 1, 0, 0));
    }

    @Test
    void slotsRoundUpToAPowerOfTwo() {
        assertThat(arena.rate("s1", 1, Duration.ofSeconds(1), 1000).slots()).isEqualTo(1024);
        assertThat(arena.rate("s2", 1, Duration.ofSeconds(1), 3).slots()).isEqualTo(8);
        assertThat(arena.rate("s3", 1, Duration.ofSeconds(1), 4096).slots()).isEqualTo(4096);
        assertThat(arena.rate("s4", 1, Duration.ofSeconds(1)).slots()).isEqualTo(SharedArena.DEFAULT_SLOTS);
        assertThatThrownBy(() -> arena.rate("s5", 1, Duration.ofSeconds(1), 0)).hasMessage("slots must be between 1 and 67108864, got 0");
    }

    @Test
    void intervalIsRoundedUpToAMicrosecond() {
        SharedRate third = arena.rate("thirds", 3, Duration.ofSeconds(1), 8, clock); // 333334 us
        third.allow("k", 3);
        clock.advance(Duration.ofSeconds(1));
        assertThat(third.remaining("k")).isCloseTo(1_000_000 / 333_334.0, within(1e-12));
        assertThat(third.allow("k", 3)).isFalse();
        clock.advanceNanos(2_000);
        assertThat(third.allow("k", 3)).isTrue();
    }

    @Test
    void refusesBadPolicies() {
        assertThatThrownBy(() -> arena.rate("p", 0, Duration.ofSeconds(1))).hasMessage("limit must be at least 1, got 0");
        assertThatThrownBy(() -> arena.rate("p", 1, Duration.ZERO)).hasMessage("window must be a positive duration, got PT0S");
        assertThatThrownBy(() -> arena.rate("p", 2_000_000, Duration.ofSeconds(1)))
                .hasMessageContaining("at most one per microsecond").hasMessageContaining("limit=2000000");
        assertThatThrownBy(() -> arena.rate("p", 1, Duration.ofDays(3))).hasMessageContaining("window must be at most").hasMessageContaining("PT72H");
    }

    @Test
    void failsOpenVisiblyWhenRetriesRunOut() {
        int offset = arena.carve("open", ArenaLayout.KIND_RATE, 5, Duration.ofSeconds(10).toNanos(), 8);
        SharedRate.Policy policy = SharedRate.Policy.of(5, Duration.ofSeconds(10));
        SharedRate giveUp = new SharedRate("open", policy, new SlotTable(arena.mapping(), offset, 8, 0), arena.keyHash(), clock);
        SharedRate normal = arena.rate("open", 5, Duration.ofSeconds(10), 8, clock);
        normal.allow("k", 5);
        assertThat(normal.allow("k")).isFalse();
        assertThat(giveUp.allow("k")).as("no attempt left: admitted uncounted").isTrue();
        SharedRate.Stats s = normal.stats();
        assertThat(s.contended()).isEqualTo(1);
        assertThat(s.allowed()).isEqualTo(1);
        assertThat(s.denied()).isEqualTo(1);
        assertThat(normal.remaining("k")).as("the bucket was not touched").isZero();
    }
}

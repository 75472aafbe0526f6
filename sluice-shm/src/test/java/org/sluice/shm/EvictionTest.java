package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/** A table too small for its live keys: takeovers give victims more, never fewer, and are counted. */
class EvictionTest {

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(9_000_000_000_000L); // frozen unless a test moves it
    private SharedArena arena;

    @BeforeEach
    void open() {
        arena = SharedArena.open(files.fresh(), 1 << 20, true, SharedArena.bootId(),
                new KeyHash(0x5eedL, 0x5eedL)); // a fixed key: fixed collisions
    }

    @AfterEach
    void close() throws Exception {
        arena.close();
        files.close();
    }

    @Test
    void aNewKeyTakesOverItsHomeWordWhenTheGroupIsLiveAndTheVictimStartsFull() {
        SharedRate r = arena.rate("small", 3, Duration.ofSeconds(30), 8, clock); // 2 groups of 4
        SlotTable t = r.table();
        List<String> sameGroup = new ArrayList<>();
        for (int i = 0; sameGroup.size() < 5; i++) {
            String k = "key-" + i;
            if (t.groupIndex(r.hash(k)) == 0) {
                sameGroup.add(k);
            }
        }
        for (String k : sameGroup.subList(0, 4)) {
            assertThat(r.allow(k, 2)).isTrue(); // four live buckets, each owing 2 of 3
        }
        assertThat(r.stats().keys()).isEqualTo(4);
        String newcomer = sameGroup.get(4);
        int home = t.homeSlot(r.hash(newcomer));
        String victim = sameGroup.subList(0, 4).stream()
                .filter(k -> BucketWord.fingerprintOf(t.word(home)) == BucketWord.fingerprint(r.hash(k)))
                .findFirst().orElseThrow();

        assertThat(r.allow(newcomer)).isTrue();

        assertThat(r.stats().evicted()).isEqualTo(1);
        assertThat(BucketWord.fingerprintOf(t.word(home))).isEqualTo(BucketWord.fingerprint(r.hash(newcomer)));
        assertThat(r.remaining(victim)).as("the victim starts over full: more, never fewer").isEqualTo(3.0);
        for (String k : sameGroup.subList(0, 4)) {
            if (!k.equals(victim)) {
                assertThat(r.remaining(k)).as(k).isEqualTo(1.0);
            }
        }
        assertThat(r.remaining(newcomer)).isEqualTo(2.0);
    }

    @Test
    void aFullBucketIsReclaimedWithoutEvicting() {
        SharedRate r = arena.rate("reclaim", 1, Duration.ofSeconds(10), 8, clock);
        for (int i = 0; i < 8; i++) {
            r.allow("old-" + i);
        }
        clock.advance(Duration.ofSeconds(10)); // every bucket has refilled: all reclaimable, no sweep ran
        assertThat(r.stats().keys()).isZero();
        for (int i = 0; i < 8; i++) {
            r.allow("new-" + i);
        }
        assertThat(r.stats().evicted()).isLessThanOrEqualTo(r.stats().allowed() - 8); // only if a group overflowed
        long live = r.stats().keys();
        assertThat(live).isBetween(1L, 8L);
    }

    @Test
    void aTableTooSmallNeverRefusesAKeyBelowItsLimit() {
        int limit = 4;
        int keys = 200;
        SharedRate r = arena.rate("crowded", limit, Duration.ofSeconds(60), 16, clock);
        for (int round = 0; round < limit; round++) {
            for (int k = 0; k < keys; k++) {
                assertThat(r.allow("tenant-" + k)).as("tenant-%d request %d", k, round + 1).isTrue();
            }
        }
        SharedRate.Stats s = r.stats();
        assertThat(s.denied()).isZero();
        assertThat(s.allowed()).isEqualTo((long) keys * limit);
        assertThat(s.evicted()).isGreaterThan(0);
        assertThat(s.keys()).isLessThanOrEqualTo(16);
    }

    @Test
    void withEnoughSlotsNoKeyIsEvictedAndEachGetsExactlyItsLimit() {
        int limit = 4;
        int keys = 200;
        SharedRate r = arena.rate("roomy", limit, Duration.ofSeconds(60), 4096, clock);
        int admitted = 0;
        for (int round = 0; round < limit + 2; round++) {
            for (int k = 0; k < keys; k++) {
                admitted += r.allow("tenant-" + k) ? 1 : 0;
            }
        }
        assertThat(admitted).isEqualTo(keys * limit);
        assertThat(r.stats().evicted()).isZero();
        assertThat(r.stats().keys()).isEqualTo(keys);
    }
}

package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.sluice.edge.store.StoredHook;

/** The delivery path's memory of recent hooks: right or silent, bounded by bytes, newest kept first. */
class SeqCacheTest {

    private static StoredHook hook(UUID id, int bodyBytes) {
        return new StoredHook(id.toString(), "t", "s", null, 1L, Map.of(), new byte[bodyBytes]);
    }

    private static UUID id(long i) {
        return new UUID(0x0190_0000_0000_7000L + i, 0x8000_0000_0000_0000L | (i * 0x9E3779B97F4A7C15L >>> 1));
    }

    @Test
    void knowsOnlyWhatItWasToldAndForgetsSilently() {
        SeqCache cache = new SeqCache();
        UUID a = new UUID(1, 2);
        assertThat(cache.get(a)).isEqualTo(-1);
        assertThat(cache.hook(a, cache.get(a))).isNull();
        StoredHook h = hook(a, 10);
        cache.put(a, 7, h, 1);
        assertThat(cache.get(a)).isEqualTo(7);
        assertThat(cache.hook(a, cache.get(a))).isSameAs(h);
        assertThat(cache.hook(a, 7)).isSameAs(h);
        assertThat(cache.hook(a, 7 + SeqCache.HOOK_SLOTS)).isNull(); // the same ring slot, another number
        assertThat(cache.hook(a, -1)).isNull();
        assertThat(cache.hook(new UUID(1, 3), 7)).isNull(); // the number is right, the id is not
        assertThat(cache.hook(new UUID(1, 3), cache.get(new UUID(1, 3)))).isNull(); // another id, whichever slot it maps to
    }

    @Test
    void keepsTheNewestHooksThatFitTheBoundAndNothingOlder() {
        int body = 64 * 1024;
        long perHook = body + SeqCache.HOOK_OVERHEAD;
        SeqCache cache = new SeqCache(10 * perHook + perHook / 2); // room for ten and a half
        int n = 1000;
        for (int i = 0; i < n; i++) {
            cache.put(id(i), i, hook(id(i), body), 1);
            assertThat(cache.hookBytes()).isLessThanOrEqualTo(cache.maxHookBytes());
        }
        for (int i = 0; i < n; i++) {
            assertThat(cache.hook(id(i), i) != null).as("hook %d kept", i).isEqualTo(i >= n - 10);
        }
        assertThat(cache.hookBytes()).isEqualTo(10 * perHook);
        assertThat(cache.get(id(n - 1))).isEqualTo(n - 1);
    }

    @Test
    void keepsTheLastRingsWorthOfSmallHooksAllOfThem() {
        SeqCache cache = new SeqCache(Long.MAX_VALUE / 2); // bytes never bind: the ring's slots do
        int n = 2 * SeqCache.HOOK_SLOTS + 123;
        for (int i = 0; i < n; i++) {
            cache.put(id(i), i, hook(id(i), 16), 1);
        }
        int kept = 0;
        for (int i = 0; i < n; i++) {
            boolean k = cache.hook(id(i), i) != null;
            assertThat(k).as("hook %d kept", i).isEqualTo(i >= n - SeqCache.HOOK_SLOTS);
            kept += k ? 1 : 0;
        }
        assertThat(kept).isEqualTo(SeqCache.HOOK_SLOTS);
        assertThat(cache.hookBytes()).isEqualTo(SeqCache.HOOK_SLOTS * (16L + SeqCache.HOOK_OVERHEAD));
    }

    @Test
    void aKeptHookLeavesTheRingWithTheLastOfTheTakesItWasKeptFor() {
        SeqCache cache = new SeqCache();
        UUID a = id(1);
        UUID b = id(2);
        StoredHook ha = hook(a, 100);
        cache.put(a, 1, ha, 2); // fanned out to two destinations, neither claimed at its commit
        cache.put(b, 2, hook(b, 50), 1);
        long bytesB = 50 + SeqCache.HOOK_OVERHEAD;
        assertThat(cache.take(a, 1)).isSameAs(ha);
        assertThat(cache.hook(a, 1)).as("one take left: still kept").isSameAs(ha);
        assertThat(cache.take(a, -1)).as("by the remembered number").isSameAs(ha);
        assertThat(cache.hook(a, 1)).as("every take done: dropped").isNull();
        assertThat(cache.take(a, 1)).as("a take beyond them (a retry) misses: it reads the store").isNull();
        assertThat(cache.get(a)).as("the number stays known").isEqualTo(1);
        assertThat(cache.hookBytes()).isEqualTo(bytesB);
        assertThat(cache.take(b, 3)).as("a wrong number takes nothing").isNull();
        assertThat(cache.take(id(3), 2)).as("another id at the number takes nothing").isNull();
        assertThat(cache.hook(b, 2)).isNotNull();
        cache.remember(id(4), 4);
        assertThat(cache.get(id(4))).isEqualTo(4);
        assertThat(cache.take(id(4), 4)).as("remembered, not kept").isNull();
        assertThat(cache.hookBytes()).isEqualTo(bytesB);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> cache.put(id(5), 5, hook(id(5), 1), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Takes on one thread while commits on another drop the oldest hooks to stay in the
     * bound: a hook leaves its slot once, so its bytes are counted off once, and the count
     * ends equal to the hooks still kept.
     */
    @Test
    void takesRacingTheRingsDropsCountEachHooksBytesOffOnce() throws Exception {
        int body = 1000;
        long perHook = body + SeqCache.HOOK_OVERHEAD;
        SeqCache cache = new SeqCache(64 * perHook);
        int n = 200_000;
        java.util.concurrent.atomic.AtomicLong committed = new java.util.concurrent.atomic.AtomicLong(-1);
        Thread taker = new Thread(() -> {
            long next = 0;
            while (next < n) {
                long upTo = committed.get();
                for (; next <= upTo; next++) {
                    cache.take(id(next), next);
                }
            }
        });
        taker.start();
        for (int i = 0; i < n; i++) {
            cache.put(id(i), i, hook(id(i), body), 1);
            committed.set(i);
            assertThat(cache.hookBytes()).isBetween(0L, 65 * perHook); // a release in progress may overshoot by one
        }
        taker.join();
        long kept = 0;
        for (int i = n - SeqCache.HOOK_SLOTS; i < n; i++) {
            kept += cache.hook(id(i), i) != null ? perHook : 0;
        }
        assertThat(cache.hookBytes()).isEqualTo(kept).isZero(); // every hook was taken once: none is left
    }

    @Test
    void aBodyOverTheLimitIsNeverKeptButItsNumberIs() {
        SeqCache cache = new SeqCache();
        UUID a = new UUID(11, 12);
        cache.put(a, 3, hook(a, SeqCache.MAX_HOOK_BODY + 1), 1);
        assertThat(cache.hook(a, cache.get(a))).isNull();
        assertThat(cache.get(a)).isEqualTo(3);
        assertThat(cache.hookBytes()).isZero();
    }

    @Test
    void theDefaultBoundIsTheSmallerOf128MiBAndAnEighthOfTheHeap() {
        assertThat(SeqCache.defaultHookBytes())
                .isEqualTo(Math.min(128L << 20, Runtime.getRuntime().maxMemory() / 8));
        assertThat(new SeqCache().maxHookBytes()).isEqualTo(SeqCache.defaultHookBytes());
    }

    /**
     * Any run of commits (numbers increasing with gaps of any size, bodies of any size): the
     * kept bytes never pass the bound and are exactly the kept hooks' bytes, the newest hook
     * that can be kept always is, and what is kept is the newest run of hooks: a kept hook
     * means every later one that could be kept (and was not replaced on its ring slot by a
     * later number) is kept too.
     */
    @Property(tries = 100)
    void whatIsKeptIsAlwaysTheNewestRunWithinTheBound(
            @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 300_000) Integer> bodies,
            @ForAll @Size(min = 400, max = 400) List<@IntRange(min = 0, max = 9) Integer> gaps,
            @ForAll @IntRange(min = 0, max = 2_000_000) int bound) {
        SeqCache cache = new SeqCache(bound);
        List<long[]> puts = new ArrayList<>(); // {seq, bytes or -1 when it can never be kept}
        long seq = 0;
        for (int i = 0; i < bodies.size(); i++) {
            seq += gap(gaps.get(i)); // mostly consecutive, sometimes on the same ring slot or far apart
            int body = bodies.get(i);
            cache.put(id(seq), seq, hook(id(seq), body), 1);
            long size = body + (long) SeqCache.HOOK_OVERHEAD;
            puts.add(new long[] {seq, body > SeqCache.MAX_HOOK_BODY || size > bound ? -1 : size});
            assertThat(cache.hookBytes()).isBetween(0L, (long) bound);
        }
        long keptBytes = 0;
        boolean laterMissing = false;
        for (int i = puts.size() - 1; i >= 0; i--) {
            long s = puts.get(i)[0];
            long size = puts.get(i)[1];
            boolean kept = cache.hook(id(s), s) != null;
            boolean replaced = false;
            for (int j = i + 1; j < puts.size(); j++) {
                replaced |= puts.get(j)[1] >= 0 && (puts.get(j)[0] - s) % SeqCache.HOOK_SLOTS == 0;
            }
            if (size < 0 || replaced) {
                assertThat(kept).as("seq %d (never keepable or replaced)", s).isFalse();
                continue;
            }
            if (i == puts.size() - 1) {
                assertThat(kept).as("the newest hook").isTrue();
            }
            if (kept) {
                assertThat(laterMissing).as("seq %d kept while a later keepable hook is not", s).isFalse();
                keptBytes += size;
            } else {
                laterMissing = true;
            }
            assertThat(cache.get(id(s))).isIn(s, -1L); // a number is right or unknown
        }
        assertThat(cache.hookBytes()).isEqualTo(keptBytes);
    }

    /** The step to the next number: 1 half the time, else onto the same ring slot, next to it, or a short jump. */
    private static long gap(int code) {
        return switch (code) {
            case 5 -> SeqCache.HOOK_SLOTS;
            case 6 -> SeqCache.HOOK_SLOTS - 1;
            case 7 -> 2L * SeqCache.HOOK_SLOTS;
            case 8 -> 17;
            case 9 -> SeqCache.HOOK_SLOTS + 1;
            default -> 1;
        };
    }
}

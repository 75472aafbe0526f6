package org.sluice.edge.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The delivery path's memory of recent hooks: right or silent, and bounded by bytes. */
class SeqCacheTest {

    private static StoredHook hook(UUID id, int bodyBytes) {
        return new StoredHook(id.toString(), "t", "s", null, 1L, Map.of(), new byte[bodyBytes]);
    }

    @Test
    void knowsOnlyWhatItWasToldAndForgetsSilently() {
        SeqCache cache = new SeqCache();
        UUID a = new UUID(1, 2);
        assertThat(cache.get(a)).isEqualTo(-1);
        assertThat(cache.hook(a)).isNull();
        StoredHook h = hook(a, 10);
        cache.put(a, 7, h);
        assertThat(cache.get(a)).isEqualTo(7);
        assertThat(cache.hook(a)).isSameAs(h);
        assertThat(cache.hook(new UUID(1, 3))).isNull(); // another id, whichever slot it maps to
    }

    @Test
    void keptHookBytesNeverPassTheBoundHoweverManyAndLargeTheHooks() {
        SeqCache cache = new SeqCache();
        int body = 64 * 1024; // 4 x 16,384 slots of these would be 1 GiB: only the bound's worth is kept
        int kept = 0;
        for (int i = 0; i < 4 * SeqCache.SLOTS; i++) {
            UUID id = new UUID(0x0190_0000_0000_7000L + i, 0x8000_0000_0000_0000L | (i * 0x9E3779B97F4A7C15L >>> 1));
            cache.put(id, i, hook(id, body));
            assertThat(cache.hookBytes()).isLessThanOrEqualTo(SeqCache.HOOK_BYTES);
            if (cache.hook(id) != null) {
                kept++;
            }
        }
        assertThat(kept).isGreaterThan(0);
        long perHook = body + SeqCache.HOOK_OVERHEAD;
        assertThat(cache.hookBytes()).isGreaterThan(SeqCache.HOOK_BYTES / 2) // the bound is used, not just respected
                .isEqualTo(cache.hookBytes() / perHook * perHook);
    }

    @Test
    void aBodyOverTheLimitIsNeverKeptButItsNumberIs() {
        SeqCache cache = new SeqCache();
        UUID a = new UUID(11, 12);
        cache.put(a, 3, hook(a, SeqCache.MAX_HOOK_BODY + 1));
        assertThat(cache.hook(a)).isNull();
        assertThat(cache.get(a)).isEqualTo(3);
        assertThat(cache.hookBytes()).isZero();
    }
}

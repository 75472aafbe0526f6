package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

/**
 * Issue 46, point 11, at the store: a header sent twice in different case ({@code X-Trace}
 * and {@code x-trace}) was stored as two headers, and each was forwarded; it is stored as
 * one, under its first spelling, with the values joined as HTTP reads a repeated header.
 */
class StoredHeaderCaseTest {

    @TempDir
    Path dir;

    @Test
    void aHeaderSentTwiceInDifferentCaseIsStoredOnceWithItsValuesJoined() {
        try (RocksHookStore store = RocksHookStore.open(dir)) {
            OrderedHeaders headers = OrderedHeaders.adopt(
                    new String[] {"X-Trace", "t-1", "Content-Type", "application/json", "x-trace", "t-2", "X-TRACE", "t-3"}, 4);
            String id = store.commit(List.of(new PendingHook("acme", "gh", null, 1_000L, headers,
                    "{}".getBytes(StandardCharsets.UTF_8)))).get(0).id();
            StoredHook read = store.get(id).orElseThrow();
            assertThat(read.headers()).containsExactly(Map.entry("X-Trace", "t-1, t-2, t-3"),
                    Map.entry("Content-Type", "application/json"));
        }
    }
}

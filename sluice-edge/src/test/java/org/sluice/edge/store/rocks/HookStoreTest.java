package org.sluice.edge.store.rocks;

import org.sluice.edge.store.UuidV7;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.CommitResult.Status;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.RetentionResult;
import org.sluice.edge.store.StoredHook;

class HookStoreTest {

    private static final long TTL = Duration.ofDays(3).toMillis();

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private RocksHookStore store;

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void retentionAloneDoesNotLowerApproximateBytesButReclaimDoes() {
        String pad = "x".repeat(4096);
        for (int i = 0; i < 200; i++) {
            store.commit(List.of(Hooks.hook("acme", "gh", "k" + i, pad)));
        }
        long deletedBytes = 200L * pad.length();
        wall.addAndGet(Duration.ofHours(1).toMillis());
        RetentionResult result = store.deliveries().retentionPass(wall.get(), 1_000, 1_000, 1_000);
        assertThat(result.hooksDeleted()).as("every hook, the newest too").isEqualTo(200);

        assertThat(store.approximateBytes()).as("a deletion is a tombstone: the bytes are still there")
                .isGreaterThanOrEqualTo(deletedBytes);
        store.reclaim();
        assertThat(store.approximateBytes()).as("flushed and compacted away").isLessThan(deletedBytes / 4);
        assertThat(store.after(null, 10).hooks()).isEmpty();

        // within the minute of that reclaim, the next compacts what retention deleted since (issue 46, point 6)
        for (int i = 200; i < 400; i++) {
            store.commit(List.of(Hooks.hook("acme", "gh", "k" + i, pad)));
        }
        assertThat(store.deliveries().retentionPass(wall.get(), 0, 0, 1_000).hooksDeleted()).isEqualTo(200);
        assertThat(store.approximateBytes()).isGreaterThanOrEqualTo(deletedBytes);
        store.reclaim();
        assertThat(store.approximateBytes()).as("the deleted range compacted away").isLessThan(deletedBytes / 4);
    }

    @Test
    void committedHooksReadBackWithHeadersInOrderAndBody() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Z-Last", "1");
        headers.put("A-First", "2");
        headers.put("X-Unicode", "caf\u00e9");
        byte[] body = {0, 1, 2, (byte) 0xFF};
        PendingHook withKey = new PendingHook("acme", "stripe", "evt_1", 1234L, headers, body);
        PendingHook noKey = Hooks.hook("beta", "open", null, "x");

        List<CommitResult> results = store.commit(List.of(withKey, noKey));

        assertThat(results).extracting(CommitResult::status).containsExactly(Status.ACCEPTED, Status.ACCEPTED);
        StoredHook read = store.get(results.get(0).id()).orElseThrow();
        assertThat(read.id()).isEqualTo(results.get(0).id());
        assertThat(read.tenant()).isEqualTo("acme");
        assertThat(read.source()).isEqualTo("stripe");
        assertThat(read.dedupeKey()).isEqualTo("evt_1");
        assertThat(read.receivedAtMillis()).isEqualTo(1234L);
        assertThat(read.headers()).containsExactly(Map.entry("Z-Last", "1"), Map.entry("A-First", "2"), Map.entry("X-Unicode", "caf\u00e9"));
        assertThat(read.body()).containsExactly(0, 1, 2, 0xFF);
        assertThat(store.get(results.get(1).id()).orElseThrow().dedupeKey()).isNull();
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id)
                .containsExactly(results.get(0).id(), results.get(1).id());
    }

    @Test
    void idsAreUuidV7AndIncreaseInCommitOrder() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(store.commit(List.of(Hooks.hook("k" + i))).get(0).id()); // wall clock stands still: same millisecond
        }
        assertThat(ids).isSorted().doesNotHaveDuplicates();
        for (String id : ids) {
            java.util.UUID u = java.util.UUID.fromString(id);
            assertThat(u.version()).isEqualTo(7);
            assertThat(u.variant()).isEqualTo(2);
            assertThat(UuidV7.millisOf(u)).isEqualTo(wall.get());
        }
    }

    @Test
    void twoCopiesOfOneKeyInABatchCollapseOntoTheFirst() {
        List<CommitResult> results = store.commit(List.of(Hooks.hook("a"), Hooks.hook("dup"), Hooks.hook("b"), Hooks.hook("dup")));

        assertThat(results).extracting(CommitResult::status)
                .containsExactly(Status.ACCEPTED, Status.ACCEPTED, Status.ACCEPTED, Status.DUPLICATE);
        assertThat(results.get(3).id()).isEqualTo(results.get(1).id());
        assertThat(store.after(null, 100).hooks()).hasSize(3);
    }

    @Test
    void aKeyCommittedWithinTheTtlIsADuplicateInALaterBatch() {
        String first = store.commit(List.of(Hooks.hook("k"))).get(0).id();
        wall.addAndGet(TTL - 1);

        CommitResult again = store.commit(List.of(Hooks.hook("k"))).get(0);

        assertThat(again).isEqualTo(CommitResult.duplicate(first));
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).contains(first);
        assertThat(store.findDuplicate("beta", "gh", "k", wall.get())).isEmpty();
        assertThat(store.findDuplicate("acme", "other", "k", wall.get())).isEmpty();
        assertThat(store.after(null, 100).hooks()).hasSize(1);
    }

    @Test
    void aLookupFromMemoryAnswersFromTheMemtableAndTheCacheAndSaysSoWhenItWouldNeedTheDisk() {
        String first = store.commit(List.of(Hooks.hook("k"))).get(0).id();
        assertThat(store.findDuplicateInMemory("acme", "gh", "k", wall.get()))
                .as("in the memtable").isEqualTo(new DuplicateLookup(true, first));
        assertThat(store.findDuplicateInMemory("acme", "gh", "never", wall.get()))
                .as("a key never seen").isEqualTo(DuplicateLookup.NONE);

        store.reclaim(); // flushed and compacted: the entry is in an SST file, its block not cached
        assertThat(store.findDuplicateInMemory("acme", "gh", "k", wall.get()))
                .as("its block is on the disk only").isEqualTo(DuplicateLookup.NEEDS_DISK);
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).as("the read that may wait").contains(first);
        assertThat(store.findDuplicateInMemory("acme", "gh", "k", wall.get()))
                .as("that read left its block in the cache").isEqualTo(new DuplicateLookup(true, first));

        wall.addAndGet(TTL);
        assertThat(store.findDuplicateInMemory("acme", "gh", "k", wall.get()))
                .as("expired, as findDuplicate says").isEqualTo(DuplicateLookup.NONE);
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).isEmpty();
    }

    @Test
    void aLookupFromMemoryAgreesWithTheStoreOnHostileKeys() {
        List<String> keys = List.of("", " ", "\u0000", "k\r\nX-Injected: 1", "caf\u00e9", "\ud83d\ude00", "\ud800",
                "\"quoted\"\\", "x".repeat(200), "y".repeat(201), "z".repeat(10_000), "sha256:" + "0".repeat(64));
        List<String> ids = new ArrayList<>();
        for (String key : keys) {
            ids.add(store.commit(List.of(Hooks.hook("t\u00fcnant", "s/../src", key, "{}"))).get(0).id());
        }
        for (boolean onDisk : new boolean[] {false, true}) {
            if (onDisk) {
                store.reclaim();
            }
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                DuplicateLookup fromMemory = store.findDuplicateInMemory("t\u00fcnant", "s/../src", key, wall.get());
                Optional<String> fromStore = store.findDuplicate("t\u00fcnant", "s/../src", key, wall.get());
                assertThat(fromStore).as("key %s", i).contains(ids.get(i));
                if (fromMemory.known()) {
                    assertThat(fromMemory.original()).as("key %s, from memory", i).isEqualTo(ids.get(i));
                }
                assertThat(store.findDuplicateInMemory("other", "s/../src", key, wall.get()).original())
                        .as("key %s under another tenant", i).isNull();
            }
        }
    }

    @Test
    void theSameKeyAfterTheTtlIsANewHook() {
        String first = store.commit(List.of(Hooks.hook("k"))).get(0).id();
        wall.addAndGet(TTL);

        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).isEmpty();
        CommitResult again = store.commit(List.of(Hooks.hook("k"))).get(0);

        assertThat(again.status()).isEqualTo(Status.ACCEPTED);
        assertThat(again.id()).isNotEqualTo(first);
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).contains(again.id());
    }

    @Test
    void aHugeDedupeTtlSaturatesInsteadOfOverflowingAndTurningDedupeOff() {
        store.close();
        long huge = Long.MAX_VALUE - 1000; // now + ttl wraps negative without saturation
        store = RocksHookStore.open(dir, new RocksHookStore.Options(huge, wall::get));
        String first = store.commit(List.of(Hooks.hook("k"))).get(0).id();
        wall.addAndGet(TTL * 1000);

        assertThat(store.commit(List.of(Hooks.hook("k"))).get(0)).isEqualTo(CommitResult.duplicate(first));
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).contains(first);
        assertThat(store.sweepDedupe(100, wall.get())).as("an entry that never expires is never swept").isZero();
    }

    @Test
    void dedupeExpiryAddsAndSaturatesAtTheLongRange() {
        assertThat(GroupCommit.dedupeExpiry(1_800_000_000_000L, 1000L)).isEqualTo(1_800_000_001_000L);
        assertThat(GroupCommit.dedupeExpiry(1_800_000_000_000L, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(GroupCommit.dedupeExpiry(Long.MAX_VALUE - 1, 2L)).isEqualTo(Long.MAX_VALUE);
        assertThat(GroupCommit.dedupeExpiry(0L, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void sweepRemovesExpiredEntriesInBoundedPasses() {
        List<PendingHook> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(Hooks.hook("k" + i));
        }
        store.commit(batch);
        wall.addAndGet(1000);
        String late = store.commit(List.of(Hooks.hook("late"))).get(0).id();

        assertThat(store.sweepDedupe(4, wall.get())).as("nothing has expired yet").isZero();
        long afterFirstTen = wall.get() - 1000 + TTL;
        assertThat(store.sweepDedupe(4, afterFirstTen)).isEqualTo(4);
        assertThat(store.sweepDedupe(4, afterFirstTen)).isEqualTo(4);
        assertThat(store.sweepDedupe(4, afterFirstTen)).isEqualTo(2);
        assertThat(store.sweepDedupe(4, afterFirstTen)).isZero();
        assertThat(store.findDuplicate("acme", "gh", "late", afterFirstTen)).contains(late);
        assertThat(store.sweepDedupe(4, afterFirstTen + 1000)).isEqualTo(1);
        assertThat(store.findDuplicate("acme", "gh", "late", 0)).as("the entry itself is gone, not just expired").isEmpty();
        assertThat(store.after(null, 100).hooks()).as("sweeping never touches hooks").hasSize(11);
    }

    @Test
    void sweepKeepsAnEntryRenewedAfterItExpired() {
        store.commit(List.of(Hooks.hook("k")));
        wall.addAndGet(TTL + 5);
        String renewed = store.commit(List.of(Hooks.hook("k"))).get(0).id();

        assertThat(store.sweepDedupe(100, wall.get())).as("only the stale expiry record").isEqualTo(1);
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).contains(renewed);
        assertThat(store.commit(List.of(Hooks.hook("k"))).get(0)).isEqualTo(CommitResult.duplicate(renewed));
    }

    @Test
    void aFailedWriteStoresNothing() {
        String before = store.commit(List.of(Hooks.hook("before"))).get(0).id();
        store.failWrites(true);

        assertThatThrownBy(() -> store.commit(List.of(Hooks.hook("x"), Hooks.hook("y"))))
                .isInstanceOf(HookStoreException.class).hasMessageContaining(dir.toString());

        assertThat(store.after(null, 100).hooks()).extracting(StoredHook::id).containsExactly(before);
        assertThat(store.findDuplicate("acme", "gh", "x", wall.get())).isEmpty();
        store.failWrites(false);
        assertThat(store.commit(List.of(Hooks.hook("x"))).get(0).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 100).hooks()).hasSize(2);
    }

    @Test
    void aFailedWriteMarksTheStoreUnhealthyUntilAResumeOrACommitSucceeds() {
        String before = store.commit(List.of(Hooks.hook("before"))).get(0).id();
        assertThat(store.isHealthy()).isTrue();
        store.failWrites(true);
        assertThatThrownBy(() -> store.commit(List.of(Hooks.hook("x")))).isInstanceOf(HookStoreException.class);
        assertThat(store.isHealthy()).isFalse();

        // the probe fails, so the database is closed and reopened, and the probe fails again
        assertThat(store.tryResume()).isFalse();
        assertThat(store.isHealthy()).isFalse();
        assertThat(store.get(before)).as("the reopened database reads what was committed").isPresent();

        store.failWrites(false);
        assertThat(store.tryResume()).isTrue();
        assertThat(store.isHealthy()).isTrue();
        String after = store.commit(List.of(Hooks.hook("x"))).get(0).id();
        assertThat(store.after(null, 100).hooks()).extracting(StoredHook::id).containsExactly(before, after);

        store.failWrites(true);
        assertThatThrownBy(() -> store.commit(List.of(Hooks.hook("y")))).isInstanceOf(HookStoreException.class);
        store.failWrites(false);
        store.commit(List.of(Hooks.hook("y")));
        assertThat(store.isHealthy()).as("a commit that succeeds is proof enough").isTrue();
    }

    @Test
    void pagesReturnEveryHookOnceAndSayWhetherMoreFollow() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ids.add(store.commit(List.of(Hooks.hook("k" + i))).get(0).id());
        }
        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            HookPage page = store.after(after, 10);
            page.hooks().forEach(h -> seen.add(h.id()));
            after = page.next();
            pages++;
        } while (after != null);

        assertThat(seen).containsExactlyElementsOf(ids);
        assertThat(pages).isEqualTo(3);
        assertThat(store.after(ids.get(19), 5).next()).as("exactly the last five: nothing more").isNull();
        assertThat(store.after(ids.get(24), 5).hooks()).isEmpty();
    }

    @Test
    void unknownIdsAreEmptyAndAnUnknownCursorIsRefused() {
        assertThat(store.get("not-a-uuid")).isEmpty();
        assertThat(store.get("0190c1a2-0000-7000-8000-000000000000")).isEmpty();
        assertThatThrownBy(() -> store.after("0190c1a2-0000-7000-8000-000000000000", 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0190c1a2-0000-7000-8000-000000000000");
        assertThatThrownBy(() -> store.after(null, 0)).hasMessageContaining("got 0");
    }

    @Test
    void hooksAndDedupeSurviveAReopenAndSequenceContinues() {
        String first = store.commit(List.of(Hooks.hook("k1"))).get(0).id();
        store.close();
        assertThat(store.isOpen()).isFalse();
        assertThatThrownBy(() -> store.get(first)).isInstanceOf(HookStoreException.class).hasMessageContaining("closed");

        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
        String second = store.commit(List.of(Hooks.hook("k2"), Hooks.hook("k1"))).get(0).id();

        assertThat(store.findDuplicate("acme", "gh", "k1", wall.get())).contains(first);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(first, second);
        assertThat(second).as("ids keep increasing across a restart").isGreaterThan(first);
    }

    @Test
    void aSecondOpenOfTheSameDirFailsNamingTheDir() {
        assertThatThrownBy(() -> RocksHookStore.open(dir))
                .isInstanceOf(HookStoreException.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining("another");
    }

    @Test
    void anUnreadableStoreFailsToOpen(@TempDir Path other) throws Exception {
        Files.writeString(other.resolve("CURRENT"), "MANIFEST-999999\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> RocksHookStore.open(other)).isInstanceOf(HookStoreException.class).hasMessageContaining(other.toString());

        Path file = other.resolve("plain-file");
        Files.writeString(file, "x");
        assertThatThrownBy(() -> RocksHookStore.open(file)).isInstanceOf(HookStoreException.class).hasMessageContaining(file.toString());
    }

    @Test
    void concurrentCommitsOfOverlappingKeysStoreEachKeyOnce() throws Exception {
        int threads = 4;
        int keys = 300;
        java.util.concurrent.ConcurrentHashMap<String, java.util.Set<String>> acceptedIdsByKey = new java.util.concurrent.ConcurrentHashMap<>();
        org.sluice.testkit.Together.run(threads, offset -> {
            for (int i = 0; i < keys; i += 3) {
                List<PendingHook> batch = new ArrayList<>();
                for (int j = 0; j < 3; j++) {
                    batch.add(Hooks.hook("k" + ((i + j + offset) % keys)));
                }
                List<CommitResult> results = store.commit(batch);
                for (int j = 0; j < 3; j++) {
                    acceptedIdsByKey.computeIfAbsent(batch.get(j).dedupeKey(), k -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                            .add(results.get(j).id());
                }
            }
        });
        List<StoredHook> all = store.after(null, 10_000).hooks();
        assertThat(all).hasSize(keys);
        assertThat(all).extracting(StoredHook::dedupeKey).doesNotHaveDuplicates();
        acceptedIdsByKey.forEach((key, ids) -> assertThat(ids).as("every answer for %s names the one stored hook", key).hasSize(1));
    }

    @Test
    void aPageOfBigBodiesStopsAtItsByteBudgetButHoldsAtLeastOneHook() {
        String big = "x".repeat(1000);
        for (int i = 0; i < 5; i++) {
            store.commit(List.of(Hooks.hook("acme", "gh", "k" + i, big)));
        }
        HookPage page = store.after(null, 100, 2500);
        assertThat(page.hooks()).hasSize(3);
        assertThat(page.next()).isEqualTo(page.hooks().get(2).id());
        HookPage tiny = store.after(null, 100, 1);
        assertThat(tiny.hooks()).hasSize(1);
        HookPage rest = store.after(page.next(), 100, 2500);
        assertThat(rest.hooks()).hasSize(2);
        assertThat(rest.next()).isNull();
    }

    @Test
    void aBatchBiggerThanTheCommitArenaIsCommittedWholeInOrder() {
        // the first record fits the committing thread's off-heap arena; the next two do not and take the heap path
        byte[] third = new byte[BatchRecords.ARENA_BYTES / 2 + 1];
        java.util.Arrays.fill(third, (byte) 'c');
        List<PendingHook> batch = List.of(Hooks.hook("acme", "gh", "k1", "a".repeat(BatchRecords.ARENA_BYTES / 2)),
                Hooks.hook("acme", "gh", "k2", "b".repeat(BatchRecords.ARENA_BYTES / 2 + 1)),
                new PendingHook("acme", "gh", null, 7L, OrderedHeaders.adopt(new String[] {"X-A", "1"}, 1), third));

        List<CommitResult> results = store.commit(batch);

        assertThat(results).extracting(CommitResult::status).containsOnly(Status.ACCEPTED);
        for (int i = 0; i < batch.size(); i++) {
            StoredHook read = store.get(results.get(i).id()).orElseThrow();
            assertThat(read.id()).isEqualTo(results.get(i).id());
            assertThat(read.body()).isEqualTo(batch.get(i).body());
            assertThat(read.headers()).containsExactlyEntriesOf(batch.get(i).headers());
        }
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id)
                .containsExactlyElementsOf(results.stream().map(CommitResult::id).toList());
        // the arena is reused by the next batch on this thread: small records after big ones read back too
        List<CommitResult> next = store.commit(List.of(Hooks.hook("k3"), Hooks.hook("k4")));
        assertThat(store.get(next.get(1).id()).orElseThrow().dedupeKey()).isEqualTo("k4");
        assertThat(store.get(next.get(0).id()).orElseThrow().body()).isEqualTo(Hooks.hook("k3").body());
    }
}

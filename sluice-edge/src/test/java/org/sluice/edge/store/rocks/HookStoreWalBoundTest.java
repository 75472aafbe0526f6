package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.CommitResult.Status;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.PendingHook;

/**
 * The live write-ahead logs stay under {@link RocksHookStore.Options#maxWalBytes()} plus what is
 * written while the flushes it asks for run, though one family (the format mark in
 * {@code meta}, written once at open) never fills a memtable of its own; the retired ones,
 * renamed {@code *.log.trash} for their paced deletion, are all gone soon after the writes
 * stop; and nothing committed is lost when the old logs go. The test writes as fast as one
 * thread can, several times a loaded server's rate, so the slack it allows is three memtables.
 */
class HookStoreWalBoundTest {

    /** The families' memtable size ({@code write_buffer_size}, FamilyOptions). */
    private static final long MEMTABLE_BYTES = 64L << 20;
    private static final long BOUND = 16L << 20;
    /** 400 commits of 64 hooks with 16 KiB bodies: 400 MiB of hooks, far past the bound and its slack. */
    private static final int COMMITS = 400;
    /** Generous: the paced deletion (128 MiB/s) of what this test retires takes a few seconds on a quiet machine. */
    private static final long DRAIN_SECONDS = 60;
    private static final int PER_COMMIT = 64;
    private static final int BODY = 16 << 10;

    @TempDir
    Path dir;

    @Test
    void theLiveLogsStayUnderTheBoundPlusThreeMemtablesTheRetiredOnesGoAndEveryCommittedHookIsReadAfterAReopen()
            throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(7);
        List<String> ids = new ArrayList<>();
        long most = 0;
        long written = 0;
        try (RocksHookStore store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withMaxWalBytes(BOUND))) {
            for (int c = 0; c < COMMITS; c++) {
                List<PendingHook> batch = new ArrayList<>(PER_COMMIT);
                for (int i = 0; i < PER_COMMIT; i++) {
                    byte[] body = new byte[BODY];
                    random.nextBytes(body); // incompressible, as a table file would store it
                    batch.add(new PendingHook("acme", "gh", null, 1_700_000_000_000L, Map.of(), body, List.of()));
                    written += BODY;
                }
                List<CommitResult> results = store.commit(batch);
                assertThat(results).allMatch(r -> r.status() == Status.ACCEPTED);
                ids.add(results.get(0).id());
                ids.add(results.get(PER_COMMIT - 1).id());
                most = Math.max(most, logBytes(".log"));
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
            while (logBytes(".log.trash") > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(logBytes(".log.trash")).as("retired logs still waiting for their deletion %d s after the writes", DRAIN_SECONDS)
                    .isZero();
        }
        assertThat(written).as("the test writes far more than the bound and its slack").isGreaterThan(BOUND + 5 * MEMTABLE_BYTES);
        assertThat(most).as("the live write-ahead logs on disk, at their largest after any commit")
                .isLessThanOrEqualTo(BOUND + 3 * MEMTABLE_BYTES);

        try (RocksHookStore reopened = RocksHookStore.open(dir, RocksHookStore.Options.defaults())) {
            for (String id : ids) {
                assertThat(reopened.get(id)).as("hook %s after the reopen", id).isPresent()
                        .get().satisfies(h -> assertThat(h.body()).hasSize(BODY));
            }
        }
    }

    @Test
    void aFileLeftWaitingForItsDeletionAtACloseIsDeletedAfterTheNextOpen() throws Exception {
        RocksHookStore.open(dir, RocksHookStore.Options.defaults()).close();
        Path left = dir.resolve("000099.log.trash");
        Files.write(left, new byte[1 << 20]);
        try (RocksHookStore store = RocksHookStore.open(dir, RocksHookStore.Options.defaults())) {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20); // generous: a shared machine
            while (Files.exists(left) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(left).as("a retired file renamed for its paced deletion, found at open").doesNotExist();
            assertThat(store.commit(List.of(Hooks.hook("k"))).get(0).status()).isEqualTo(Status.ACCEPTED);
        }
    }

    @Test
    void aBoundUnderOneMebibyteIsRefusedWithTheValue() {
        assertThatThrownBy(() -> RocksHookStore.Options.defaults().withMaxWalBytes(1000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000");
        assertThat(RocksHookStore.Options.defaults().maxWalBytes()).isEqualTo(RocksHookStore.DEFAULT_MAX_WAL_BYTES);
    }

    /** The total size of the store's files whose names end with {@code suffix}. */
    private long logBytes(String suffix) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (p.getFileName().toString().endsWith(suffix)) {
                    try {
                        total += Files.size(p);
                    } catch (java.nio.file.NoSuchFileException deleted) {
                        // a log deleted between the listing and its size: it takes no room
                    }
                }
            }
        }
        return total;
    }
}

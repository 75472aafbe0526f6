package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.CommitResult.Status;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.StoredHook;

/**
 * Commits from two threads (the intake's partitions) share fsyncs: each one's synced write
 * runs outside the commit lock, so two can be inside RocksDB's write at once, while pagers
 * and later commits still see the commit order without a gap. One commit's write is held
 * open at {@link GroupCommit.CommitWriteHook} to look at the store meanwhile.
 */
class HookStoreSharedFsyncTest {

    /** Generous: the machine these tests run on is shared and loaded; a pass never waits this long. */
    private static final long WAIT_SECONDS = 20;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private RocksHookStore store;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
    }

    @AfterEach
    void close() {
        store.onCommitWrite(null);
        threads.shutdownNow();
        store.close();
    }

    @Test
    void walSyncsCountsTheLogSyncOfASyncedCommitAndSurvivesClose() {
        long before = store.walSyncs();
        store.commit(List.of(Hooks.hook("a")));
        assertThat(store.walSyncs()).as("one commit alone: its own sync").isEqualTo(before + 1);
        store.commit(List.of(Hooks.hook("b"), Hooks.hook("c")));
        assertThat(store.walSyncs()).as("one batch, one sync").isEqualTo(before + 2);
        store.close();
        assertThat(store.walSyncs()).as("read after close: the count at close").isGreaterThanOrEqualTo(before + 2);
    }

    @Test
    void commitSyncSecondsGrowsByTheTimeOfEachCommitsSync() {
        double before = store.commitSyncSeconds();
        long start = System.nanoTime();
        store.commit(List.of(Hooks.hook("a")));
        double afterOne = store.commitSyncSeconds();
        assertThat(afterOne).as("the commit's own sync, a real fsync: some time").isGreaterThan(before);
        assertThat(afterOne - before).as("no more than the whole commit took")
                .isLessThanOrEqualTo((System.nanoTime() - start) / 1e9);
        store.commit(List.of(Hooks.hook("b")));
        assertThat(store.commitSyncSeconds()).isGreaterThan(afterOne);
    }

    @Test
    void twoCommitsAreInsideTheirFsyncedWriteAtOnceInsteadOfQueueingOnTheCommitLock() throws Exception {
        CyclicBarrier bothWriting = new CyclicBarrier(2);
        store.onCommitWrite(new Hook() {
            @Override
            public void beforeWrite(long firstSeq) {
                try {
                    bothWriting.await(WAIT_SECONDS, TimeUnit.SECONDS); // passes only when the other commit is here too
                } catch (Exception e) {
                    throw new IllegalStateException("the other commit never reached its write", e);
                }
            }
        });

        Future<List<CommitResult>> first = threads.submit(() -> store.commit(List.of(Hooks.hook("a"))));
        Future<List<CommitResult>> second = threads.submit(() -> store.commit(List.of(Hooks.hook("b"))));

        assertThat(first.get(2 * WAIT_SECONDS, TimeUnit.SECONDS)).extracting(CommitResult::status).containsExactly(Status.ACCEPTED);
        assertThat(second.get(2 * WAIT_SECONDS, TimeUnit.SECONDS)).extracting(CommitResult::status).containsExactly(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).hasSize(2);
    }

    @Test
    void aPagerNeverSeesALaterHookBeforeAnEarlierOneIsDurable() throws Exception {
        Held held = holdFirstWrite();
        Future<List<CommitResult>> earlier = threads.submit(() -> store.commit(List.of(Hooks.hook("early"))));
        held.awaitHeld();
        Future<List<CommitResult>> later = threads.submit(() -> store.commit(List.of(Hooks.hook("late"))));
        held.awaitOtherWritten();

        assertThat(rawHookCount()).as("the later batch is written and visible in RocksDB").isEqualTo(1);
        assertThat(store.after(null, 10).hooks()).as("but not to a pager: the earlier number is not durable yet").isEmpty();
        assertThat(store.after(null, 10).next()).isNull();
        Thread.sleep(100); // room for a wrong early return; a pass does not depend on it
        assertThat(later.isDone()).as("a commit answers only once every earlier commit is durable").isFalse();

        held.release();
        String earlyId = earlier.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        String lateId = later.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(earlyId, lateId);
    }

    @Test
    void aFifoFollowerOfThePendingIndexNeverSeesALaterHookBeforeAnEarlierOneIsDurable() throws Exception {
        Held held = holdFirstWrite();
        Future<List<CommitResult>> earlier = threads.submit(
                () -> store.commit(List.of(Hooks.hook("early").withDestinations(List.of("d")))));
        held.awaitHeld();
        Future<List<CommitResult>> later = threads.submit(
                () -> store.commit(List.of(Hooks.hook("late").withDestinations(List.of("d")))));
        held.awaitOtherWritten();

        assertThat(store.deliveries().pendingInOrder("d", 0, 10))
                .as("the later hook's pending entry is written, but a cursor past it would skip the earlier one").isEmpty();

        held.release();
        String earlyId = earlier.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        String lateId = later.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        assertThat(store.deliveries().pendingInOrder("d", 0, 10)).extracting(DeliveryLedger.PendingRef::hookId)
                .containsExactly(earlyId, lateId);
    }

    @Test
    void aKeyWhoseWriteIsStillOpenIsADuplicateForTheNextCommit() throws Exception {
        Held held = holdFirstWrite();
        Future<List<CommitResult>> first = threads.submit(() -> store.commit(List.of(Hooks.hook("k"))));
        held.awaitHeld();
        Future<List<CommitResult>> copy = threads.submit(() -> store.commit(List.of(Hooks.hook("k"), Hooks.hook("other"))));
        held.awaitOtherWritten();
        held.release();

        String id = first.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        List<CommitResult> copyResults = copy.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(copyResults.get(0)).isEqualTo(CommitResult.duplicate(id));
        assertThat(copyResults.get(1).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("k", "other");
    }

    @Test
    void aDuplicateOfAKeyWhoseWriteFailedIsNotAnsweredWithTheLostId() throws Exception {
        Held held = holdFirstWrite();
        held.failAfterRelease = true;
        Future<List<CommitResult>> first = threads.submit(() -> store.commit(List.of(Hooks.hook("k"))));
        held.awaitHeld();
        Future<List<CommitResult>> copy = threads.submit(() -> store.commit(List.of(Hooks.hook("k"))));
        Thread.sleep(200); // lets the copy reach its wait when the code lets it; a pass does not depend on it
        held.release();

        assertThatThrownBy(() -> first.get(WAIT_SECONDS, TimeUnit.SECONDS)).hasCauseInstanceOf(HookStoreException.class);
        List<CommitResult> copyResults;
        try {
            copyResults = copy.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // the copy was decided a duplicate of the held write, which then failed: it fails too
            assertThat(e.getCause()).isInstanceOf(HookStoreException.class);
            assertThat(store.after(null, 10).hooks()).isEmpty();
            assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).isEmpty();
            return;
        }
        // or the copy was decided after the failure: it is then the key's first copy
        assertThat(copyResults.get(0).status()).as("never a duplicate of the id that was lost").isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(copyResults.get(0).id());
    }

    @Test
    void aCommitWrittenButNotYetFsyncedIsNotPagedSentOrNamedAsTheOriginalOfADuplicate() throws Exception {
        // the fsync runs after the write, outside RocksDB's write path: the batch is visible first
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        store.onCommitWrite(new Hook() {
            @Override
            public void beforeSync(long firstSeq) {
                written.countDown();
                try {
                    release.await(2 * WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Future<List<CommitResult>> first = threads.submit(
                () -> store.commit(List.of(Hooks.hook("k").withDestinations(List.of("d")))));
        assertThat(written.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThat(rawHookCount()).as("written and visible in RocksDB").isEqualTo(1);
        assertThat(store.after(null, 10).hooks()).as("not paged before it is durable").isEmpty();
        assertThat(store.deliveries().due("d", Long.MAX_VALUE, 10)).as("not due to be sent before it is durable").isEmpty();
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).as("not yet the original of a copy").isEmpty();
        store.onCommitWrite(null); // the copy's own write goes through
        Future<List<CommitResult>> copy = threads.submit(() -> store.commit(List.of(Hooks.hook("k"))));
        Thread.sleep(100); // room for a wrong early return; a pass does not depend on it
        assertThat(copy.isDone()).as("a copy is answered only once the original is durable").isFalse();

        release.countDown();
        String id = first.get(WAIT_SECONDS, TimeUnit.SECONDS).get(0).id();
        assertThat(copy.get(WAIT_SECONDS, TimeUnit.SECONDS)).containsExactly(CommitResult.duplicate(id));
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(id);
        assertThat(store.deliveries().due("d", Long.MAX_VALUE, 10)).extracting(DeliveryRow::hookId).containsExactly(id);
        assertThat(store.findDuplicate("acme", "gh", "k", wall.get())).contains(id);
    }

    // ---------------------------------------------------------------- helpers

    private long rawHookCount() {
        return store.database().read(rocks -> {
            long n = 0;
            try (RocksIterator it = rocks.db().newIterator(rocks.hooks())) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    n++;
                }
            }
            return n;
        });
    }

    /** Holds the first commit's write until {@code Held.release()}; lets every other commit through. */
    private Held holdFirstWrite() {
        Held held = new Held();
        store.onCommitWrite(held);
        return held;
    }

    private abstract static class Hook implements GroupCommit.CommitWriteHook {
        @Override
        public void beforeWrite(long firstSeq) {
        }

        @Override
        public void afterWrite(long firstSeq) {
        }
    }

    private static final class Held extends Hook {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final CountDownLatch otherWritten = new CountDownLatch(1);
        private final List<Long> seen = new ArrayList<>();
        volatile boolean failAfterRelease;

        @Override
        public void beforeWrite(long firstSeq) {
            boolean first;
            synchronized (seen) {
                first = seen.isEmpty();
                seen.add(firstSeq);
            }
            if (!first) {
                return;
            }
            held.countDown();
            try {
                released.await(2 * WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failAfterRelease) {
                throw new HookStoreException("injected failure of the held write");
            }
        }

        @Override
        public void afterWrite(long firstSeq) {
            synchronized (seen) {
                if (!seen.isEmpty() && seen.get(0) != firstSeq) {
                    otherWritten.countDown();
                }
            }
        }

        void awaitHeld() throws InterruptedException {
            assertThat(held.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first commit reached its write").isTrue();
        }

        void awaitOtherWritten() throws InterruptedException {
            assertThat(otherWritten.await(WAIT_SECONDS, TimeUnit.SECONDS))
                    .as("the second commit wrote while the first one's write was open").isTrue();
        }

        void release() {
            released.countDown();
        }
    }
}

package org.sluice.edge.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.CommitResult.Status;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.edge.store.rocks.StoreFaults;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.Together;

class IntakeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private HookStore store;
    private Intake intake;
    private GatedCommitter gate;

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir);
    }

    @AfterEach
    void close() {
        if (gate != null) {
            gate.open();
        }
        if (intake != null) {
            intake.close();
        }
        store.close();
    }

    private static CommitResult await(CompletableFuture<CommitResult> f) throws Exception {
        return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void acceptedHooksAreInTheStoreAndTheQueueEmpties() throws Exception {
        intake = Intake.start(store, IntakeSettings.defaults(), new SimpleMeterRegistry());
        List<CompletableFuture<CommitResult>> futures = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            futures.add(intake.submit(Hooks.hook(i % 10 == 0 ? null : "k" + i)));
        }
        for (CompletableFuture<CommitResult> f : futures) {
            CommitResult r = await(f);
            assertThat(r.status()).isEqualTo(Status.ACCEPTED);
            assertThat(store.get(r.id())).isPresent();
        }
        assertThat(intake.queuedHooks()).isZero();
        assertThat(intake.queuedBytes()).isZero();
    }

    @Test
    void aHookSubmittedWithDestinationsIsAcceptedWithItsDeliveriesScheduledAndItsCopyWithNone() throws Exception {
        intake = Intake.start(store, IntakeSettings.defaults(), new SimpleMeterRegistry());
        CompletableFuture<CommitResult> first = intake.submit(Hooks.hook("k1").withDestinations(List.of("a", "b")));
        CommitResult accepted = await(first);
        CommitResult copy = await(intake.submit(Hooks.hook("k1").withDestinations(List.of("a", "b"))));

        assertThat(accepted.status()).isEqualTo(Status.ACCEPTED);
        assertThat(copy.status()).isEqualTo(Status.DUPLICATE);
        assertThat(store.deliveries().deliveries(accepted.id())).extracting(r -> r.destination() + " " + r.state().code())
                .containsExactly("a pending", "b pending");
        assertThat(store.deliveries().counts("a", System.currentTimeMillis()).pending()).isEqualTo(1);
    }

    @Test
    void copiesOfOneKeyQueuedTogetherCollapseIntoOneStoredHook() throws Exception {
        gate = new GatedCommitter(store);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1), registry, new ManualClock());
        // hold the writer with a first batch, so both copies queue behind it and share the next batch
        CompletableFuture<CommitResult> blocker = intake.submit(Hooks.hook("first"));
        gate.awaitStarted();
        CompletableFuture<CommitResult> copy1 = intake.submit(Hooks.hook("acme", "gh", "dup", "one"));
        CompletableFuture<CommitResult> copy2 = intake.submit(Hooks.hook("acme", "gh", "dup", "two"));
        gate.open();

        assertThat(await(blocker).status()).isEqualTo(Status.ACCEPTED);
        CommitResult r1 = await(copy1);
        CommitResult r2 = await(copy2);
        assertThat(r1.status()).isEqualTo(Status.ACCEPTED);
        assertThat(r2).isEqualTo(CommitResult.duplicate(r1.id()));
        assertThat(registry.summary("sluice.intake.commit.batch.size").max()).as("both copies were in one batch").isEqualTo(2);
        assertThat(store.after(null, 100).hooks()).filteredOn(h -> "dup".equals(h.dedupeKey()))
                .extracting(h -> new String(h.body(), StandardCharsets.UTF_8)).containsExactly("one");
    }

    @Test
    void aKeyAlreadyCommittedIsADuplicateWithTheOriginalId() throws Exception {
        intake = Intake.start(store, IntakeSettings.defaults(), new SimpleMeterRegistry());
        CommitResult first = await(intake.submit(Hooks.hook("k")));
        CommitResult second = await(intake.submit(Hooks.hook("k")));
        assertThat(second).isEqualTo(CommitResult.duplicate(first.id()));
    }

    @Test
    void onlyHooksWhoseBatchNeverStartedAreRefusedAtTheDeadline() throws Exception {
        ManualClock clock = new ManualClock();
        gate = new GatedCommitter(store);
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1).withCommitDeadlineMs(1000),
                new SimpleMeterRegistry(), clock);
        CompletableFuture<CommitResult> inFlight = intake.submit(Hooks.hook("a"));
        gate.awaitStarted();
        CompletableFuture<CommitResult> queued1 = intake.submit(Hooks.hook("b"));
        CompletableFuture<CommitResult> queued2 = intake.submit(Hooks.hook("c"));

        clock.advance(Duration.ofSeconds(1));
        intake.expireOverdue();
        assertThat(queued1).as("exactly at the deadline is still in time").isNotDone();

        clock.advance(Duration.ofMillis(1));
        intake.expireOverdue();
        assertThat(await(queued1)).isEqualTo(CommitResult.OVERLOAD);
        assertThat(await(queued2)).isEqualTo(CommitResult.OVERLOAD);
        assertThat(inFlight).as("a started commit is waited out, however late").isNotDone();

        gate.open();
        CommitResult a = await(inFlight);
        assertThat(a.status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(a.id());
        assertThat(intake.queuedHooks()).isZero();
    }

    @Test
    void aHookOverdueWhenTheWriterFreesUpIsRefusedAndOneInTimeCommits() throws Exception {
        ManualClock clock = new ManualClock();
        gate = new GatedCommitter(store);
        // a deadline the background reaper cannot reach on its own (the manual clock only moves here)
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1).withCommitDeadlineMs(1000),
                new SimpleMeterRegistry(), clock);
        CompletableFuture<CommitResult> inFlight = intake.submit(Hooks.hook("a"));
        gate.awaitStarted();
        CompletableFuture<CommitResult> late = intake.submit(Hooks.hook("b"));
        clock.advance(Duration.ofMillis(500));
        CompletableFuture<CommitResult> inTime = intake.submit(Hooks.hook("c"));
        clock.advance(Duration.ofMillis(501));
        gate.open();

        assertThat(await(inFlight).status()).isEqualTo(Status.ACCEPTED);
        assertThat(await(late)).isEqualTo(CommitResult.OVERLOAD);
        assertThat(await(inTime).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("a", "c");
    }

    @Test
    void aFullQueueRefusesAtOnceAndQueuesNothing() throws Exception {
        gate = new GatedCommitter(store);
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1).withMaxQueue(2),
                new SimpleMeterRegistry(), new ManualClock());
        CompletableFuture<CommitResult> a = intake.submit(Hooks.hook("a"));
        gate.awaitStarted();
        CompletableFuture<CommitResult> b = intake.submit(Hooks.hook("b"));

        CompletableFuture<CommitResult> c = intake.submit(Hooks.hook("c"));
        assertThat(c).isCompletedWithValue(CommitResult.OVERLOAD);
        assertThat(intake.queuedHooks()).isEqualTo(2);

        gate.open();
        assertThat(await(a).status()).isEqualTo(Status.ACCEPTED);
        assertThat(await(b).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("a", "b");
    }

    @Test
    void aFullByteBudgetRefusesButOneOversizedHookFitsAnEmptyQueue() throws Exception {
        gate = new GatedCommitter(store);
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1).withMaxQueueBytes(10),
                new SimpleMeterRegistry(), new ManualClock());
        CompletableFuture<CommitResult> big = intake.submit(Hooks.hook("acme", "gh", "big", "x".repeat(50)));
        gate.awaitStarted();
        assertThat(intake.queuedBytes()).isEqualTo(50);
        assertThat(intake.submit(Hooks.hook("acme", "gh", "small", "y"))).isCompletedWithValue(CommitResult.OVERLOAD);
        gate.open();
        assertThat(await(big).status()).isEqualTo(Status.ACCEPTED);
        assertThat(await(intake.submit(Hooks.hook("acme", "gh", "small", "y"))).status()).isEqualTo(Status.ACCEPTED);
        assertThat(intake.queuedBytes()).isZero();
    }

    @Test
    void aFailedWriteAnswersEveryHookOfTheBatchStoreUnavailable() throws Exception {
        gate = new GatedCommitter(store);
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(1), new SimpleMeterRegistry(), new ManualClock());
        CompletableFuture<CommitResult> first = intake.submit(Hooks.hook("first"));
        gate.awaitStarted();
        List<CompletableFuture<CommitResult>> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(intake.submit(Hooks.hook("k" + i)));
        }
        gate.release(1);
        assertThat(await(first).status()).isEqualTo(Status.ACCEPTED);
        gate.awaitStarted(); // the five are now one batch, at the gate
        StoreFaults.failWrites(store, true);
        gate.release(1);
        for (CompletableFuture<CommitResult> f : batch) {
            assertThat(await(f)).isEqualTo(CommitResult.STORE_UNAVAILABLE);
        }
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("first");
        assertThat(intake.queuedHooks()).isZero();

        StoreFaults.failWrites(store, false);
        gate.open();
        assertThat(await(intake.submit(Hooks.hook("k0"))).status()).as("not remembered as a duplicate").isEqualTo(Status.ACCEPTED);
    }

    @Test
    void pagingWhileConcurrentSubmittersCommitReturnsEveryHookOnceInCommitOrder() throws Exception {
        intake = Intake.start(store, IntakeSettings.defaults().withPartitions(2).withMaxBatch(16), new SimpleMeterRegistry());
        int threads = 4;
        int perThread = 400;
        ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
        Together.Crowd crowd = Together.start(threads, thread -> {
            List<CompletableFuture<CommitResult>> mine = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                mine.add(intake.submit(Hooks.hook("t" + thread + "-" + i)));
                if (i % 50 == 49) { // keep the queue from filling: wait for this thread's hooks now and then
                    for (CompletableFuture<CommitResult> f : mine) {
                        CommitResult r = await(f);
                        assertThat(r.status()).isEqualTo(Status.ACCEPTED);
                        acked.add(r.id());
                    }
                    mine.clear();
                }
            }
        });
        // a reader follows the store while the commits are in flight
        List<String> followed = new ArrayList<>();
        String cursor = null;
        boolean writersDone = false;
        while (true) {
            HookPage page = store.after(cursor, 7);
            page.hooks().forEach(h -> followed.add(h.id()));
            if (!page.hooks().isEmpty()) {
                cursor = page.hooks().get(page.hooks().size() - 1).id();
            }
            if (page.next() == null) {
                if (writersDone) {
                    break;
                }
                writersDone = crowd.awaitEnd(1, TimeUnit.MILLISECONDS);
            }
        }
        crowd.join(); // fails with what a submitter threw
        List<String> all = new ArrayList<>();
        for (String c = null; ; ) {
            HookPage page = store.after(c, 1000);
            page.hooks().forEach(h -> all.add(h.id()));
            if ((c = page.next()) == null) {
                break;
            }
        }
        assertThat(all).hasSize(threads * perThread).doesNotHaveDuplicates();
        assertThat(followed).as("the follower saw each hook once, in commit order").containsExactlyElementsOf(all);
        assertThat(all).as("ids are minted in commit order").isSorted();
        assertThat(new HashSet<>(all)).isEqualTo(Set.copyOf(acked));
    }

    @Test
    void closeCommitsEverythingQueuedAndThenRefuses() throws Exception {
        gate = new GatedCommitter(store);
        intake = Intake.start(gate, IntakeSettings.defaults().withPartitions(2).withMaxBatch(8), new SimpleMeterRegistry(), new ManualClock());
        List<CompletableFuture<CommitResult>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            futures.add(intake.submit(Hooks.hook("k" + i)));
        }
        gate.awaitStarted(); // at least one batch is at the gate; the rest is queued
        AtomicBoolean closedReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            intake.close();
            closedReturned.set(true);
        });
        closer.start();
        // close() flips to refusing promptly; a hook that slipped in first is simply committed
        Eventually.until("the closing intake refuses new hooks",
                () -> CommitResult.OVERLOAD.equals(intake.submit(Hooks.hook("after-close")).getNow(null)));
        assertThat(closedReturned).as("close waits for the queued hooks").isFalse();
        gate.open();
        closer.join(WAIT.toMillis());
        assertThat(closedReturned).isTrue();
        for (CompletableFuture<CommitResult> f : futures) {
            assertThat(f).isDone();
            assertThat(f.get().status()).isEqualTo(Status.ACCEPTED);
        }
        assertThat(store.after(null, 1000).hooks()).filteredOn(h -> !"after-close".equals(h.dedupeKey())).hasSize(200);
    }

    @Test
    void metricsRenderUnderTheirPrometheusNames() throws Exception {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        intake = Intake.start(store, IntakeSettings.defaults(), prometheus);
        await(intake.submit(Hooks.hook("m")));
        String text = prometheus.scrape();
        assertThat(text).contains("sluice_intake_commit_batch_size_count 1");
        assertThat(text).contains("sluice_intake_commit_batch_size_sum 1");
        assertThat(text).contains("sluice_intake_commit_seconds_count 1");
        assertThat(text).contains("sluice_intake_queue_hooks 0");
        assertThat(text).contains("sluice_intake_queue_bytes 0");
        assertThat(text).doesNotContain("seconds_seconds");
        intake.close();
        assertThat(prometheus.scrape()).doesNotContain("sluice_intake");
    }

    @Test
    void submitAfterCloseIsOverload() {
        intake = Intake.start(store, IntakeSettings.defaults(), new SimpleMeterRegistry());
        intake.close();
        PendingHook h = Hooks.hook("late");
        assertThat(intake.submit(h)).isCompletedWithValue(CommitResult.OVERLOAD);
        assertThat(store.after(null, 10).hooks()).isEmpty();
    }

    @Test
    void withAMaxDelayAFullBatchCommitsAtOnceAndClosingCutsTheWaitShort() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // a delay no test would wait out: the batch must commit because it is full, and close must not wait it out
        intake = Intake.start(store::commit, IntakeSettings.defaults().withPartitions(1).withMaxBatch(3).withMaxDelayMs(600_000),
                registry, new ManualClock());
        List<CompletableFuture<CommitResult>> full = List.of(
                intake.submit(Hooks.hook("a")), intake.submit(Hooks.hook("b")), intake.submit(Hooks.hook("c")));
        for (CompletableFuture<CommitResult> f : full) {
            assertThat(await(f).status()).isEqualTo(Status.ACCEPTED);
        }
        CompletableFuture<CommitResult> d = intake.submit(Hooks.hook("d"));
        CompletableFuture<CommitResult> e = intake.submit(Hooks.hook("e"));
        intake.close();
        assertThat(d.getNow(null).status()).isEqualTo(Status.ACCEPTED);
        assertThat(e.getNow(null).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("a", "b", "c", "d", "e");
    }

    // ---------------------------------------------------------------- a writer killed by an Error

    /** A commit held at a gate that throws an Error while {@code poison} is set: a test-only committer. */
    private static final class ErrorCommitter implements BatchCommitter {
        final HookStore store;
        final Semaphore started = new Semaphore(0);
        final Semaphore permits = new Semaphore(0);
        final AtomicBoolean poison = new AtomicBoolean();

        ErrorCommitter(HookStore store) {
            this.store = store;
        }

        @Override
        public List<CommitResult> commit(List<PendingHook> batch) {
            started.release();
            permits.acquireUninterruptibly();
            if (poison.get()) {
                throw new StackOverflowError("test: the writer's commit overflowed its stack");
            }
            return store.commit(batch);
        }

        void awaitStarted() throws InterruptedException {
            assertThat(started.tryAcquire(30, TimeUnit.SECONDS)).as("a batch started").isTrue();
        }
    }

    @Test
    void anErrorInAWriterAnswersItsBatch503AndANewWriterTakesTheSameKeyAfterTheBackoff() throws Exception {
        ManualClock clock = new ManualClock();
        ErrorCommitter committer = new ErrorCommitter(store);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        intake = Intake.start(committer, IntakeSettings.defaults().withPartitions(1).withCommitDeadlineMs(600_000),
                registry, clock);
        CompletableFuture<CommitResult> first = intake.submit(Hooks.hook("first"));
        committer.awaitStarted();
        List<CompletableFuture<CommitResult>> batch = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batch.add(intake.submit(Hooks.hook("acme", "gh", "k" + i, "body" + i)));
        }
        committer.permits.release(1);
        assertThat(await(first).status()).isEqualTo(Status.ACCEPTED);
        committer.awaitStarted(); // the three are one batch, at the gate
        committer.poison.set(true);
        committer.permits.release(1);
        for (CompletableFuture<CommitResult> f : batch) {
            assertThat(await(f)).as("a hook of the batch the Error broke").isEqualTo(CommitResult.STORE_UNAVAILABLE);
        }
        assertThat(intake.partitionsDown()).isEqualTo(1);
        assertThat(registry.get("sluice.intake.partitions.down").gauge().value()).isEqualTo(1.0);
        assertThat(intake.queuedHooks()).isZero();

        committer.poison.set(false);
        committer.permits.release(1_000_000);
        CompletableFuture<CommitResult> retry = intake.submit(Hooks.hook("acme", "gh", "k0", "retry"));
        clock.advance(Duration.ofMillis(Intake.RESTART_BACKOFF_MILLIS - 1));
        intake.restartDownWriters();
        assertThat(intake.partitionsDown()).as("still within the backoff").isEqualTo(1);
        assertThat(retry).as("no writer takes the partition's queue while it is down").isNotDone();

        clock.advance(Duration.ofMillis(1));
        intake.restartDownWriters();
        assertThat(intake.partitionsDown()).isZero();
        CommitResult accepted = await(retry);
        assertThat(accepted.status()).isEqualTo(Status.ACCEPTED);
        assertThat(await(intake.submit(Hooks.hook("acme", "gh", "k1", "again"))).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(h -> h.dedupeKey() + ":" + new String(h.body(), StandardCharsets.UTF_8))
                .as("nothing of the broken batch was stored").containsExactly("first:{\"k\":\"first\"}", "k0:retry", "k1:again");
        assertThat(registry.get("sluice.intake.partitions.down").gauge().value()).isZero();
    }

    @Test
    void closeDrainsAPartitionWhoseWriterIsDown() throws Exception {
        ManualClock clock = new ManualClock();
        ErrorCommitter committer = new ErrorCommitter(store);
        intake = Intake.start(committer, IntakeSettings.defaults().withPartitions(1).withCommitDeadlineMs(600_000),
                new SimpleMeterRegistry(), clock);
        committer.poison.set(true);
        committer.permits.release(1);
        assertThat(await(intake.submit(Hooks.hook("k")))).isEqualTo(CommitResult.STORE_UNAVAILABLE);
        committer.awaitStarted();
        committer.poison.set(false);
        committer.permits.release(1_000_000);
        CompletableFuture<CommitResult> queued = intake.submit(Hooks.hook("k"));
        assertThat(intake.partitionsDown()).isEqualTo(1);

        intake.close(); // no backoff at close: the partition gets a writer and drains
        assertThat(queued.getNow(null).status()).isEqualTo(Status.ACCEPTED);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::dedupeKey).containsExactly("k");
    }
}

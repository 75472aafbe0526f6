package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;
import org.sluice.edge.delivery.DeadReason;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.CommitResult.Status;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.DestinationBacklog;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.RetentionResult;
import org.sluice.edge.store.StoredHook;

/** The delivery ledger on a real RocksDB in a temp dir, with a manual wall clock. */
class DeliveryLedgerTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(T0);
    private RocksHookStore store;
    private RocksDeliveryLedger ledger;

    @BeforeEach
    void open() {
        reopen();
    }

    @AfterEach
    void close() {
        assertThat(LedgerChecks.verify(ledger)).isEmpty();
        store.close();
    }

    private void reopen() {
        if (store != null) {
            store.close();
        }
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
        ledger = store.deliveries();
    }

    private String commit(String key, String... destinations) {
        CommitResult r = store.commit(List.of(Hooks.hook(key).withDestinations(List.of(destinations)))).get(0);
        assertThat(r.status()).isEqualTo(Status.ACCEPTED);
        return r.id();
    }

    private DeliveryRow only(String destination, long now) {
        List<DeliveryRow> due = ledger.due(destination, now, 10);
        assertThat(due).hasSize(1);
        return due.get(0);
    }

    // ---------------------------------------------------------------- commit

    @Test
    void acceptedHookGetsOnePendingRowPerDestinationDueAtCommitTime() {
        String id = commit("k1", "a", "b");

        assertThat(ledger.deliveries(id)).extracting(DeliveryRow::destination, DeliveryRow::state, DeliveryRow::attempts,
                        DeliveryRow::nextAttemptAtMillis, DeliveryRow::scheduledAtMillis)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", DeliveryState.PENDING, 0, T0, T0),
                        org.assertj.core.groups.Tuple.tuple("b", DeliveryState.PENDING, 0, T0, T0));
        assertThat(ledger.due("a", T0, 10)).extracting(DeliveryRow::hookId).containsExactly(id);
        assertThat(ledger.due("a", T0 - 1, 10)).isEmpty();
        assertThat(ledger.counts("a", T0 + 5000)).isEqualTo(new DestinationBacklog(1, 0, 5000));
        assertThat(only("a", T0).nextAttemptNumber()).isEqualTo(1);
    }

    @Test
    void theDispatchersReadOfAHookWithPendingDeliveriesMatchesTheStoredOne() {
        String id = commit("k1", "a");
        StoredHook stored = store.get(id).orElseThrow();
        assertThat(ledger.cachedHookBytes()).isPositive(); // kept by its commit for the dispatcher's read
        StoredHook forDelivery = store.getForDelivery(id).orElseThrow();
        assertThat(forDelivery).usingRecursiveComparison().isEqualTo(stored);
        assertThat(forDelivery.body()).isEqualTo(stored.body());
        assertThat(store.deliveryReads(true)).isEqualTo(1); // served from memory, not re-read
        assertThat(store.deliveryReads(false)).isZero();
        assertThat(ledger.cachedHookBytes()).as("its one delivery has read it: it left the memory").isZero();
        id = commit("k2", "a"); // a second hook, kept, for the reopen below
        stored = store.get(id).orElseThrow();
        reopen(); // memory is gone: read from the store, the same hook
        assertThat(store.getForDelivery(id).orElseThrow()).usingRecursiveComparison().isEqualTo(stored);
        assertThat(ledger.cachedHookBytes()).isZero();
        assertThat(store.deliveryReads(true)).isZero(); // a new store counts from its opening
        assertThat(store.deliveryReads(false)).isEqualTo(1);
        assertThat(store.getForDelivery("not-a-uuid")).isEmpty();
        assertThat(store.getForDelivery("0190f6c2-7a40-7000-8000-000000000001")).isEmpty();
    }

    @Test
    void aHookNotInMemoryIsReadAtTheNumberTheDueScanGaveForIt() {
        String first = commit("k1", "a");
        String second = commit("k2", "a");
        Map<String, StoredHook> stored = Map.of(first, store.get(first).orElseThrow(), second, store.get(second).orElseThrow());
        reopen(); // memory is gone: the hooks come from RocksDB
        DeliveryLedger.Due due = ledger.dueBy("a", T0, 10, seq -> false);
        assertThat(due.rows()).extracting(DeliveryRow::hookId).containsExactly(first, second);
        assertThat(due.seqs()[0]).isNotEqualTo(due.seqs()[1]);
        for (int i = 0; i < 2; i++) {
            String id = due.rows().get(i).hookId();
            assertThat(store.getForDelivery(id, due.seqs()[i]).orElseThrow()).usingRecursiveComparison().isEqualTo(stored.get(id));
        }
        assertThat(ledger.cachedHookBytes()).isZero(); // the scan keeps nothing in memory
        assertThat(store.deliveryReads(false)).isEqualTo(2);
        assertThat(store.getForDelivery("not-a-uuid", due.seqs()[0])).isEmpty();
    }

    @Test
    void aPassesHooksReadTogetherAreTheHooksEachReadWouldGive() {
        Map<String, StoredHook> stored = new java.util.HashMap<>();
        for (int i = 0; i < 30; i++) { // every third hook also to b: its rows lie between a's
            String id = i % 3 == 0 ? commit("old" + i, "a", "b") : commit("old" + i, "a");
            stored.put(id, store.get(id).orElseThrow());
        }
        reopen(); // memory is gone: these come from RocksDB
        store.reclaim(); // and from its files, not its memtable
        for (int i = 0; i < 5; i++) {
            String id = commit("new" + i, "a"); // kept in memory by their commit
            stored.put(id, store.get(id).orElseThrow());
        }
        DeliveryLedger.Due due = ledger.dueBy("a", T0, 100, seq -> false);
        assertThat(due.rows()).hasSize(35);
        List<String> ids = due.rows().stream().map(DeliveryRow::hookId).toList();

        StoredHook[] together = store.getForDelivery(ids, due.seqs());

        for (int i = 0; i < ids.size(); i++) {
            assertThat(together[i]).usingRecursiveComparison().isEqualTo(stored.get(ids.get(i)));
        }
        assertThat(store.deliveryReads(true)).isEqualTo(5);
        assertThat(store.deliveryReads(false)).isEqualTo(30);

        // in another order, with a wrong number, an unknown one, a malformed id and no number
        List<String> odd = List.of(ids.get(20), ids.get(3), ids.get(4), ids.get(0), "not-a-uuid", ids.get(7));
        long[] seqs = {due.seqs()[20], due.seqs()[3], due.seqs()[9], Long.MAX_VALUE, due.seqs()[1], -1};
        StoredHook[] read = store.getForDelivery(odd, seqs);
        assertThat(read[0]).usingRecursiveComparison().isEqualTo(stored.get(ids.get(20)));
        assertThat(read[1]).usingRecursiveComparison().isEqualTo(stored.get(ids.get(3)));
        assertThat(read[2]).as("another hook's number: the id does not match").isNull();
        assertThat(read[3]).as("no hook at that number").isNull();
        assertThat(read[4]).isNull();
        assertThat(read[5]).as("by id").usingRecursiveComparison().isEqualTo(stored.get(ids.get(7)));
        assertThatThrownBy(() -> store.getForDelivery(ids, new long[1])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHookWhoseEveryRowIsClaimedAtItsCommitIsNotKeptButOneWithARowLeftIs() {
        Set<String> claiming = new HashSet<>(Set.of("a")); // the dispatcher claims a's rows, not b's
        List<CommitClaims.Claimed> handed = new ArrayList<>();
        store.setCommitClaims(new CommitClaims() {
            @Override
            public long claim(String destination, long nowMillis) {
                return claiming.contains(destination) ? nowMillis + 40_000 : -1;
            }

            @Override
            public void committed(List<Claimed> claimed, int unclaimed, boolean written) {
                handed.addAll(claimed);
            }
        });
        String allClaimed = commit("all", "a");
        assertThat(handed).extracting(c -> c.hook().id()).containsExactly(allClaimed); // handed over with its claim
        assertThat(ledger.cachedHookBytes()).as("not kept: the dispatcher already holds it").isZero();
        assertThat(ledger.cachedSeq(java.util.UUID.fromString(allClaimed))).as("its number is").isEqualTo(handed.get(0).seq());

        String oneLeft = commit("one-left", "a", "b"); // a's row claimed, b's due now: b's read comes later
        assertThat(ledger.cachedHookBytes()).isEqualTo(store.get(oneLeft).orElseThrow().body().length + (long) SeqCache.HOOK_OVERHEAD);
        assertThat(store.getForDelivery(oneLeft).orElseThrow()).usingRecursiveComparison().isEqualTo(store.get(oneLeft).orElseThrow());
        assertThat(store.deliveryReads(true)).isEqualTo(1);
        assertThat(ledger.cachedHookBytes()).as("b's read was the one it was kept for").isZero();

        assertThat(store.getForDelivery(allClaimed).orElseThrow()).as("a retry of the claimed one reads the store")
                .usingRecursiveComparison().isEqualTo(store.get(allClaimed).orElseThrow());
        assertThat(store.deliveryReads(false)).isEqualTo(1);

        store.setCommitClaims(null);
        commit("unclaimed", "a");
        assertThat(ledger.cachedHookBytes()).as("nobody claims: kept").isPositive();
    }

    @Test
    void aHookWithoutDestinationsIsNotKeptForTheDispatcher() {
        store.commit(List.of(Hooks.hook("k9")));
        assertThat(ledger.cachedHookBytes()).isZero();
    }

    @Test
    void duplicateSchedulesNothingAndHookWithoutDestinationsHasNoRows() {
        String id = commit("k1", "a");
        List<CommitResult> again = store.commit(List.of(Hooks.hook("k1").withDestinations(List.of("a", "b")),
                Hooks.hook("k2"), Hooks.hook("k2").withDestinations(List.of("b"))));

        assertThat(again).extracting(CommitResult::status).containsExactly(Status.DUPLICATE, Status.ACCEPTED, Status.DUPLICATE);
        assertThat(again.get(0).id()).isEqualTo(id);
        assertThat(ledger.deliveries(again.get(1).id())).isEmpty();
        assertThat(ledger.due("b", Long.MAX_VALUE, 10)).isEmpty();
        assertThat(ledger.counts("a", T0).pending()).isEqualTo(1);
        assertThat(ledger.counts("b", T0)).isEqualTo(new DestinationBacklog(0, 0, 0));
    }

    @Test
    void destinationNamesAreCheckedWhenTheHookIsBuilt() {
        assertThatThrownBy(() -> Hooks.hook("k").withDestinations(List.of("a", "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("named twice");
        assertThatThrownBy(() -> Hooks.hook("k").withDestinations(List.of("")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 255 bytes");
    }

    @Test
    void failedCommitSchedulesNothing() {
        store.failWrites(true);
        assertThatThrownBy(() -> store.commit(List.of(Hooks.hook("k1").withDestinations(List.of("a")))))
                .isInstanceOf(HookStoreException.class);
        store.failWrites(false);
        assertThat(ledger.counts("a", T0).pending()).isZero();
        assertThat(ledger.due("a", Long.MAX_VALUE, 10)).isEmpty();
    }

    // ---------------------------------------------------------------- due order and transitions

    @Test
    void dueListsOneDestinationEarliestDueFirstThenCommitOrderAndStopsAtNow() {
        String h1 = commit("k1", "a", "b");
        wall.addAndGet(10);
        String h2 = commit("k2", "a");
        wall.addAndGet(10);
        String h3 = commit("k3", "a");

        assertThat(ledger.recordAttempt(only("b", T0), 503, null, T0 + 1000, T0)).isTrue();
        DeliveryRow first = ledger.due("a", T0, 10).get(0);
        assertThat(ledger.recordAttempt(first, null, "timeout", T0 + 15, T0 + 1)).isTrue(); // h1 now due after h2

        assertThat(ledger.due("a", T0 + 20, 10)).extracting(DeliveryRow::hookId).containsExactly(h2, h1, h3);
        assertThat(ledger.due("a", T0 + 12, 10)).extracting(DeliveryRow::hookId).containsExactly(h2);
        assertThat(ledger.due("a", T0 + 20, 2)).extracting(DeliveryRow::hookId).containsExactly(h2, h1);
        assertThat(ledger.due("b", T0 + 999, 10)).isEmpty();
        DeliveryRow retried = ledger.due("b", T0 + 1000, 10).get(0);
        assertThat(retried.attempts()).isEqualTo(1);
        assertThat(retried.lastStatus()).isEqualTo(503);
        assertThat(retried.lastError()).isNull();
        DeliveryRow timedOut = ledger.deliveries(h1).get(0);
        assertThat(timedOut.lastStatus()).isNull();
        assertThat(timedOut.lastError()).isEqualTo("timeout");
        assertThat(timedOut.updatedAtMillis()).isEqualTo(T0 + 1);
    }

    @Test
    void aBrokerAcknowledgementIsDeliveredWithoutAStatus() {
        String id = commit("k1", "a");
        DeliveryRow row = only("a", T0);

        assertThat(ledger.markDelivered(row, null, T0 + 3)).isTrue();

        DeliveryRow done = ledger.deliveries(id).get(0);
        assertThat(done.state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(done.lastStatus()).isNull();
        assertThat(done.lastError()).isNull();
        assertThat(done.deliveredAtMillis()).isEqualTo(T0 + 3);
    }

    @Test
    void markDeliveredFinishesTheRowAndRemovesItFromDue() {
        String id = commit("k1", "a");
        DeliveryRow row = only("a", T0);

        assertThat(ledger.markDelivered(row, 204, T0 + 7)).isTrue();

        DeliveryRow done = ledger.deliveries(id).get(0);
        assertThat(done.state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.lastStatus()).isEqualTo(204);
        assertThat(done.deliveredAtMillis()).isEqualTo(T0 + 7);
        assertThat(ledger.due("a", Long.MAX_VALUE, 10)).isEmpty();
        assertThat(ledger.counts("a", T0 + 7)).isEqualTo(new DestinationBacklog(0, 0, 0));
    }

    @Test
    void aTransitionOnAStaleRowChangesNothing() {
        String id = commit("k1", "a");
        DeliveryRow seen = only("a", T0);
        assertThat(ledger.markDelivered(seen, 200, T0 + 1)).isTrue();

        assertThat(ledger.markDelivered(seen, 200, T0 + 2)).as("marked twice").isFalse();
        assertThat(ledger.recordAttempt(seen, 500, null, T0 + 9, T0 + 2)).isFalse();
        assertThat(ledger.markDead(seen, "max_attempts", true, 500, null, T0 + 2)).isFalse();
        assertThat(ledger.deliveries(id).get(0).deliveredAtMillis()).isEqualTo(T0 + 1);

        // an attempt that began before a redelivery cannot mark the fresh delivery
        DeliveryRow fresh = ledger.redeliver(id, null, T0 + 3).orElseThrow().get(0);
        assertThat(ledger.markDelivered(seen, 200, T0 + 4)).isFalse();
        assertThat(ledger.deliveries(id).get(0)).isEqualTo(fresh);
        assertThat(ledger.markDelivered(new DeliveryRow(id, "zz", DeliveryState.PENDING, 0, 0, 0, 0,
                null, null, null, null, null), 200, T0)).as("no such destination").isFalse();
    }

    @Test
    void claimMovesTheDueTimeWithoutCountingAnAttempt() {
        commit("k1", "a");
        DeliveryRow seen = only("a", T0);

        assertThat(ledger.claim(seen, T0 + 30_000)).isTrue();

        assertThat(ledger.due("a", T0 + 29_999, 10)).isEmpty();
        DeliveryRow claimed = only("a", T0 + 30_000);
        assertThat(claimed.attempts()).isZero();
        assertThat(ledger.markDelivered(seen, 200, T0 + 5)).as("the claim does not make the row stale").isTrue();
    }

    // ---------------------------------------------------------------- the dispatcher's hot path

    @Test
    void applyWritesEveryTransitionInOneWriteAndEachSeesTheOnesBeforeIt() {
        String a = commit("k1", "a");
        String b = commit("k2", "a");
        List<DeliveryRow> rows = ledger.due("a", T0, 10);
        DeliveryRow ra = rows.get(0);
        DeliveryRow rb = rows.get(1);
        long writesBefore = cumulativeWrites();

        boolean[] applied = ledger.apply(List.of(
                DeliveryLedger.Transition.claim(ra, T0 + 45_000),
                DeliveryLedger.Transition.claim(rb, T0 + 45_000),
                DeliveryLedger.Transition.delivered(ra, 200, T0 + 5), // sees the claim: still the same version
                DeliveryLedger.Transition.delivered(ra, 200, T0 + 6), // sees the delivery: stale
                DeliveryLedger.Transition.attempt(rb, 503, null, T0 + 2_000, T0 + 5)));

        assertThat(applied).containsExactly(true, true, true, false, true);
        assertThat(cumulativeWrites() - writesBefore).as("one ledger write for the five").isEqualTo(1);
        assertThat(ledger.deliveries(a).get(0).deliveredAtMillis()).isEqualTo(T0 + 5);
        DeliveryRow retried = ledger.deliveries(b).get(0);
        assertThat(retried.attempts()).isEqualTo(1);
        assertThat(retried.nextAttemptAtMillis()).isEqualTo(T0 + 2_000);
        assertThat(ledger.counts("a", T0)).isEqualTo(new DestinationBacklog(1, 0, 0));
        assertThat(ledger.apply(List.of())).isEmpty();
    }

    @Test
    void aTransitionSeenExactlyTakesTheRowAsReadUntilAnotherWriteChangesRows() {
        String a = commit("k1", "a");
        String b = commit("k2", "a");
        DeliveryLedger.Due due = ledger.dueBy("a", T0, 10, seq -> false);
        assertThat(due.rows()).extracting(DeliveryRow::hookId).containsExactly(a, b);

        assertThat(ledger.apply(List.of(DeliveryLedger.Transition.attempt(due.rows().get(0), 503, null, T0 + 1_000, T0 + 1)
                .seenAt(due.seqs()[0], due.writes())))).containsExactly(true);
        DeliveryRow retried = ledger.deliveries(a).get(0);
        assertThat(retried.attempts()).isEqualTo(1);
        assertThat(retried.nextAttemptAtMillis()).isEqualTo(T0 + 1_000);

        // a redelivery after the read: the row is read again, and the stale transition changes nothing
        DeliveryRow fresh = ledger.redeliver(b, null, T0 + 2).orElseThrow().get(0);
        assertThat(ledger.othersWrites()).isGreaterThan(due.writes());
        assertThat(ledger.apply(List.of(DeliveryLedger.Transition.delivered(due.rows().get(1), 200, T0 + 3)
                .seenAt(due.seqs()[1], due.writes())))).containsExactly(false);
        assertThat(ledger.deliveries(b).get(0)).isEqualTo(fresh);
        assertThat(ledger.counts("a", T0)).isEqualTo(new DestinationBacklog(2, 0, 0));
        assertThat(LedgerChecks.verify(ledger)).isEmpty();
    }

    @Test
    void theScanStepsOverHeldRowsWithoutCountingThemAndUnheldLowersItsFloorAgain() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(commit("k" + i, "a"));
        }
        DeliveryLedger.Due first = ledger.dueBy("a", T0, 10, seq -> false);
        Set<Long> held = new HashSet<>();
        held.add(first.seqs()[0]);
        held.add(first.seqs()[1]);

        DeliveryLedger.Due next = ledger.dueBy("a", T0, 2, held::contains);
        assertThat(next.rows()).extracting(DeliveryRow::hookId).containsExactly(ids.get(2), ids.get(3));
        assertThat(next.nextDueMillis()).isEqualTo(T0);
        assertThat(LedgerChecks.floorMillis(ledger, "a")).as("no live entry but held ones below").isEqualTo(T0);

        // every row due at T0: the floor cannot pass them. Make the held rows the only ones left, then let one go
        ledger.apply(List.of(DeliveryLedger.Transition.delivered(next.rows().get(0), 200, T0),
                DeliveryLedger.Transition.delivered(next.rows().get(1), 200, T0),
                DeliveryLedger.Transition.delivered(first.rows().get(4), 200, T0)));
        assertThat(ledger.dueBy("a", T0 + 5, 10, held::contains).rows()).isEmpty();
        assertThat(LedgerChecks.floorMillis(ledger, "a")).as("past the held rows").isEqualTo(T0 + 6);
        held.remove(first.seqs()[0]);
        assertThat(ledger.dueBy("a", T0 + 5, 10, held::contains).rows()).as("below the floor, not yet told").isEmpty();
        ledger.unheld("a", first.rows().get(0).nextAttemptAtMillis());
        assertThat(ledger.dueBy("a", T0 + 5, 10, held::contains).rows()).extracting(DeliveryRow::hookId)
                .containsExactly(ids.get(0));
    }

    @Test
    void dueScanStepsOverTheTombstonesOfHandledRowsOnlyOnce() {
        for (int i = 0; i < 500; i++) {
            commit("old" + i, "a");
        }
        List<DeliveryRow> handled = ledger.due("a", T0, 1_000);
        assertThat(handled).hasSize(500);
        ledger.apply(handled.stream().map(r -> DeliveryLedger.Transition.delivered(r, 200, T0)).toList());
        wall.set(T0 + 1);
        String live = commit("live", "a");

        long first = deletesSkipped(() -> assertThat(ledger.due("a", T0 + 1, 10)).extracting(DeliveryRow::hookId)
                .containsExactly(live));
        long second = deletesSkipped(() -> assertThat(ledger.dueBy("a", T0 + 1, 10).rows()).hasSize(1));

        assertThat(first).as("the first scan walks over the 500 handled rows' entries").isGreaterThanOrEqualTo(500);
        assertThat(second).as("later scans start past them").isZero();
        DeliveryRow liveRow = ledger.due("a", T0 + 1, 10).get(0);
        assertThat(ledger.claim(liveRow, T0 + 45_000)).isTrue();
        assertThat(ledger.due("a", T0 + 1, 10)).isEmpty(); // the floor is now at the claim
        wall.set(T0 + 2);
        String later = commit("later", "a"); // an entry below the floor lowers it: found
        assertThat(ledger.due("a", T0 + 2, 10)).extracting(DeliveryRow::hookId).containsExactly(later);
        DeliveryRow laterRow = ledger.due("a", T0 + 2, 10).get(0);
        assertThat(ledger.recordAttempt(laterRow, 503, null, T0 + 3, T0 + 2)).isTrue();
        assertThat(ledger.due("a", T0 + 3, 10)).extracting(DeliveryRow::hookId).containsExactly(later);
        assertThat(ledger.due("a", T0 + 45_000, 10)).extracting(DeliveryRow::hookId).containsExactly(later, live);
    }

    @Test
    void theOldestPendingLookStepsOverTheTombstonesOfFinishedRowsOnlyOnce() {
        List<String> old = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            old.add(commit("old" + i, "a"));
        }
        ledger.apply(ledger.due("a", T0, 1_000).stream().map(r -> DeliveryLedger.Transition.delivered(r, 200, T0)).toList());
        wall.set(T0 + 1_000);
        String live = commit("live", "a");

        long[] firstLook = new long[1];
        long first = deletesSkipped(() -> firstLook[0] = ledger.counts("a", T0 + 3_000).oldestPendingAgeMillis());
        long second = deletesSkipped(() -> assertThat(ledger.counts("a", T0 + 3_000).oldestPendingAgeMillis()).isEqualTo(2_000));
        assertThat(firstLook[0]).as("the live hook, committed at T0 + 1000").isEqualTo(2_000);
        assertThat(first).as("the first look walks over the 500 finished rows' entries").isGreaterThanOrEqualTo(500);
        assertThat(second).as("later looks start past them").isZero();

        // an operator sends an old hook again: its entry lies below the floor, which comes down to it
        ledger.redeliver(old.get(7), null, T0 + 3_000);
        assertThat(ledger.counts("a", T0 + 3_000)).isEqualTo(new DestinationBacklog(2, 0, 3_000));
        ledger.apply(ledger.due("a", T0 + 3_000, 10).stream().map(r -> DeliveryLedger.Transition.delivered(r, 200, T0 + 3_000))
                .toList());
        assertThat(ledger.counts("a", T0 + 4_000)).as("nothing pending: no age").isEqualTo(new DestinationBacklog(0, 0, 0));
        assertThat(LedgerChecks.pendingFloorSeq(ledger, "a")).as("no live entry at all").isEqualTo(Long.MAX_VALUE);

        wall.set(T0 + 5_000);
        String late = commit("late", "a"); // a commit brings the floor down to its number
        assertThat(ledger.counts("a", T0 + 5_250)).isEqualTo(new DestinationBacklog(1, 0, 250));
        assertThat(ledger.due("a", T0 + 5_000, 10)).extracting(DeliveryRow::hookId).containsExactly(late);
        assertThat(live).isNotEqualTo(late);
    }

    @Test
    void aCommitThatClaimsItsRowsLeavesTheScanFloorAtTheClaimNotAtNow() {
        long hold = 40_000; // as a dispatcher claims: the attempt's timeout and a slack after the commit
        store.setCommitClaims(new CommitClaims() {
            @Override
            public long claim(String destination, long nowMillis) {
                return nowMillis + hold;
            }

            @Override
            public void committed(List<Claimed> claimed, int unclaimed, boolean written) {
            }
        });
        List<String> answered = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            wall.set(T0 + i);
            answered.add(commit("claimed" + i, "a"));
        }
        ledger.apply(answered.stream().map(id -> DeliveryLedger.Transition.delivered(ledger.deliveries(id).get(0), 200, T0 + 500))
                .toList());
        // a scan as late as the answered claims' entries (T0 + 40 000 to T0 + 40 499) steps over them once
        assertThat(ledger.due("a", T0 + hold + 499, 10)).isEmpty();
        assertThat(LedgerChecks.floorMillis(ledger, "a")).isEqualTo(T0 + hold + 500);

        wall.set(T0 + 1_000);
        String out = commit("out", "a"); // claimed too: due at the claim's expiry, T0 + 41 000

        assertThat(LedgerChecks.floorMillis(ledger, "a")).as("lowered to the new row's due time at most, not to the commit's").isEqualTo(T0 + hold + 500);
        long skipped = deletesSkipped(() -> assertThat(ledger.due("a", T0 + hold + 999, 10)).isEmpty());
        assertThat(skipped).as("the next scan does not step over the answered claims' entries again").isZero();
        assertThat(ledger.due("a", T0 + 1_000 + hold, 10)).extracting(DeliveryRow::hookId).containsExactly(out);

        store.setCommitClaims(null);
        wall.set(T0 + 2_000);
        String unclaimed = commit("unclaimed", "a"); // due now: the floor comes down to it
        assertThat(LedgerChecks.floorMillis(ledger, "a")).isEqualTo(T0 + 2_000);
        assertThat(ledger.due("a", T0 + 2_000, 10)).extracting(DeliveryRow::hookId).containsExactly(unclaimed);
    }

    @Test
    void theDispatchersScanStopsAtNowWithoutSteppingOverTheAnsweredClaimsBeyondIt() {
        List<String> answered = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            answered.add(commit("answered" + i, "a"));
        }
        String live = commit("live", "a");
        // every row claimed (due again 40 s on, as a dispatcher claims), then all but one answered
        List<DeliveryRow> claimed = ledger.due("a", T0, 1_000);
        ledger.apply(claimed.stream().map(r -> DeliveryLedger.Transition.claim(r, r.hookId().equals(live) ? T0 + 40_500 : T0 + 40_000))
                .toList());
        ledger.apply(answered.stream().map(id -> DeliveryLedger.Transition.delivered(ledger.deliveries(id).get(0), 200, T0 + 1))
                .toList());
        assertThat(ledger.dueBy("a", T0 + 1, 10).rows()).isEmpty(); // steps over the claims' old entries once
        wall.set(T0 + 2);
        String now = commit("now", "a"); // due now: the floor comes down to it, below the 500 deleted claims

        long skipped = deletesSkipped(() -> {
            DeliveryLedger.Due due = ledger.dueBy("a", T0 + 2, 10);
            assertThat(due.rows()).extracting(DeliveryRow::hookId).containsExactly(now);
            assertThat(due.nextDueMillis()).as("nothing more due by now; what comes later is not read").isEqualTo(-1);
        });
        assertThat(skipped).as("the answered claims' entries lie beyond now: never stepped over (a scan without the"
                + " upper bound steps over the 500 of them on its way to the live claim)").isZero();

        assertThat(ledger.dueBy("a", T0 + 2, 10).rows()).hasSize(1);
        commit("second", "a");
        assertThat(ledger.dueBy("a", T0 + 2, 1).nextDueMillis()).as("more due by now than the limit").isEqualTo(T0 + 2);
        assertThat(ledger.dueBy("a", T0 + 40_500, 10).rows()).extracting(DeliveryRow::hookId).contains(live).hasSize(3);
    }

    @Test
    void dueByTellsTheNextDueTimeOnlyWhenMoreWereDueThanTheLimit() {
        String k1 = commit("k1", "a");
        String k2 = commit("k2", "a");
        DeliveryRow first = ledger.due("a", T0, 1).get(0);
        assertThat(first.hookId()).isEqualTo(k1);
        ledger.claim(first, T0 + 45_000);

        DeliveryLedger.Due due = ledger.dueBy("a", T0, 10);
        assertThat(due.rows()).extracting(DeliveryRow::hookId).containsExactly(k2);
        assertThat(due.nextDueMillis()).as("the claim is due after now: not read").isEqualTo(-1);
        assertThat(ledger.dueBy("a", T0, 1).nextDueMillis()).as("exactly the limit due: nothing more by now").isEqualTo(-1);
        String k3 = commit("k3", "a");
        assertThat(ledger.dueBy("a", T0, 1).nextDueMillis()).as("more due now than the limit").isEqualTo(T0);
        assertThat(ledger.dueBy("b", T0, 1).nextDueMillis()).as("nothing at all").isEqualTo(-1);
        assertThat(ledger.dueBy("a", T0 + 45_000, 10).rows()).extracting(DeliveryRow::hookId).containsExactly(k2, k3, k1);
    }

    /** RocksDB's own count of write calls since open ("Cumulative writes" of its DB stats). */
    private long cumulativeWrites() {
        String stats = store.database().read(rocks -> rocks.db().getProperty("rocksdb.dbstats"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Cumulative writes: (\\d+)([KMG]?) writes").matcher(stats);
        assertThat(m.find()).as(stats).isTrue();
        assertThat(m.group(2)).as("a count small enough to be exact").isEmpty();
        return Long.parseLong(m.group(1));
    }

    /** Tombstones the iterators of {@code scan} stepped over (RocksDB's per-thread perf context). */
    private long deletesSkipped(Runnable scan) {
        return store.database().read(rocks -> {
            RocksDB db = rocks.db();
            db.setPerfLevel(PerfLevel.ENABLE_COUNT);
            try {
                PerfContext context = db.getPerfContext();
                context.reset();
                scan.run();
                return context.getInternalDeleteSkippedCount();
            } finally {
                db.setPerfLevel(PerfLevel.DISABLE);
            }
        });
    }

    @Test
    void markDeadKeepsTheReasonAndListsTheDeadLetter() {
        String id = commit("k1", "a", "b");

        assertThat(ledger.markDead(only("a", T0), DeadReason.PERMANENT_STATUS.code(), true, 410, null, T0 + 3)).isTrue();
        assertThat(ledger.markDead(only("b", T0), DeadReason.MAX_AGE.code(), false, null, null, T0 + 4)).isTrue();

        List<DeliveryRow> rows = ledger.deliveries(id);
        assertThat(rows).extracting(DeliveryRow::state).containsOnly(DeliveryState.DEAD);
        assertThat(rows).extracting(DeliveryRow::deadReason).containsExactly("permanent_status", "max_age");
        assertThat(rows).extracting(DeliveryRow::deadAtMillis).containsExactly(T0 + 3, T0 + 4);
        assertThat(rows).extracting(DeliveryRow::attempts).containsExactly(1, 0);
        assertThat(rows.get(0).lastStatus()).isEqualTo(410);
        assertThat(ledger.counts("a", T0)).isEqualTo(new DestinationBacklog(0, 1, 0));
        assertThat(ledger.deadLetters("a", null, 10).rows()).extracting(DeliveryRow::hookId).containsExactly(id);
        assertThat(ledger.due("a", Long.MAX_VALUE, 10)).isEmpty();
    }

    @Test
    void everyDeadReasonOfTheDeliveryPackageCanBeStoredAndOthersCannot() {
        // one destination per reason, so a reason added to DeadReason (permanent_error) is stored too
        DeadReason[] reasons = DeadReason.values();
        List<String> destinations = Arrays.stream(reasons).map(r -> "d-" + r.code()).toList();
        String id = commit("k1", destinations.toArray(String[]::new));
        for (int i = 0; i < reasons.length; i++) {
            String d = destinations.get(i);
            assertThat(ledger.markDead(only(d, T0), reasons[i].code(), true, 500, null, T0)).isTrue();
        }
        assertThat(ledger.deliveries(id)).extracting(DeliveryRow::deadReason)
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(reasons).map(DeadReason::code).toList());
        commit("k2", "a");
        assertThatThrownBy(() -> ledger.markDead(only("a", T0), "bored", true, 500, null, T0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bored");
        assertThat(ledger.counts("a", T0).pending()).isEqualTo(1);
    }

    // ---------------------------------------------------------------- redelivery

    @Test
    void redeliverStartsAFreshDeliveryWhateverTheStateWas() {
        String id = commit("k1", "a", "b", "c");
        ledger.markDelivered(only("a", T0), 200, T0 + 1);
        ledger.markDead(only("b", T0), "max_attempts", true, 500, null, T0 + 2);
        ledger.recordAttempt(only("c", T0), 500, null, T0 + 60_000, T0 + 3);
        wall.set(T0 + 10);

        List<DeliveryRow> fresh = ledger.redeliver(id, null, T0 + 10).orElseThrow();

        assertThat(fresh).extracting(DeliveryRow::destination).containsExactly("a", "b", "c");
        for (DeliveryRow r : ledger.deliveries(id)) {
            assertThat(r.state()).isEqualTo(DeliveryState.PENDING);
            assertThat(r.attempts()).isZero();
            assertThat(r.nextAttemptNumber()).isEqualTo(1);
            assertThat(r.nextAttemptAtMillis()).isEqualTo(T0 + 10);
            assertThat(r.lastStatus()).isNull();
            assertThat(r.deadReason()).isNull();
        }
        for (String d : List.of("a", "b", "c")) {
            assertThat(ledger.due(d, T0 + 10, 10)).hasSize(1);
            assertThat(ledger.counts(d, T0 + 10)).isEqualTo(new DestinationBacklog(1, 0, 10));
        }
        assertThat(ledger.deadLetters(null, null, 10).rows()).isEmpty();
    }

    @Test
    void redeliverToANamedDestinationAddsARowAndUnknownHookIsEmpty() {
        String id = commit("k1", "a");
        ledger.markDelivered(only("a", T0), 200, T0);

        assertThat(ledger.redeliver(id, List.of("b"), T0 + 1).orElseThrow()).extracting(DeliveryRow::destination).containsExactly("b");
        assertThat(ledger.deliveries(id)).extracting(DeliveryRow::destination, DeliveryRow::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", DeliveryState.DELIVERED),
                        org.assertj.core.groups.Tuple.tuple("b", DeliveryState.PENDING));
        assertThat(ledger.redeliver("0190aaaa-0000-7000-8000-000000000000", null, T0)).isEmpty();
        assertThat(ledger.redeliver("nope", null, T0)).isEmpty();
    }

    @Test
    void redeliverSurvivesAReopen() {
        String id = commit("k1", "a");
        ledger.markDead(only("a", T0), "max_age", false, null, null, T0);
        ledger.redeliver(id, null, T0 + 5);

        reopen();

        assertThat(ledger.deliveries(id).get(0).state()).isEqualTo(DeliveryState.PENDING);
        assertThat(ledger.counts("a", T0 + 5)).isEqualTo(new DestinationBacklog(1, 0, 5));
    }

    // ---------------------------------------------------------------- dead letters

    @Test
    void deadLettersPageInCommitOrderPerDestinationAndAcrossDestinationsWithoutSplittingAHook() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = commit("k" + i, "a", "b");
            ids.add(id);
            ledger.markDead(only("a", T0), "max_attempts", true, 500, null, T0);
            if (i % 2 == 0) {
                ledger.markDead(only("b", T0), "max_attempts", true, 500, null, T0);
            } else {
                ledger.markDelivered(only("b", T0), 200, T0);
            }
        }

        DeadLetterPage a1 = ledger.deadLetters("a", null, 2);
        assertThat(a1.rows()).extracting(DeliveryRow::hookId).containsExactly(ids.get(0), ids.get(1));
        DeadLetterPage a2 = ledger.deadLetters("a", a1.next(), 2);
        assertThat(a2.rows()).extracting(DeliveryRow::hookId).containsExactly(ids.get(2), ids.get(3));
        DeadLetterPage a3 = ledger.deadLetters("a", a2.next(), 2);
        assertThat(a3.rows()).extracting(DeliveryRow::hookId).containsExactly(ids.get(4));
        assertThat(a3.next()).isNull();
        assertThat(ledger.deadLetters("b", null, 10).rows()).extracting(DeliveryRow::hookId)
                .containsExactly(ids.get(0), ids.get(2), ids.get(4));

        // every destination: 8 dead letters; pages of 2 would end inside hooks 2 and 4, so those pages hold 3
        List<String> seen = new ArrayList<>();
        String after = null;
        List<Integer> sizes = new ArrayList<>();
        do {
            DeadLetterPage p = ledger.deadLetters(null, after, 2);
            p.rows().forEach(r -> seen.add(ids.indexOf(r.hookId()) + r.destination()));
            sizes.add(p.rows().size());
            after = p.next();
        } while (after != null);
        assertThat(seen).containsExactly("0a", "0b", "1a", "2a", "2b", "3a", "4a", "4b");
        assertThat(sizes).containsExactly(2, 3, 3);
        assertThatThrownBy(() -> ledger.deadLetters("a", "0190aaaa-0000-7000-8000-000000000000", 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no stored hook");
    }

    // ---------------------------------------------------------------- counts, pause, reopen

    @Test
    void countsAreRebuiltFromTheStoreAtOpen() {
        commit("k1", "a");
        wall.addAndGet(100);
        commit("k2", "a", "b");
        ledger.markDead(ledger.due("b", Long.MAX_VALUE, 1).get(0), "max_age", false, null, null, T0);
        ledger.markDelivered(ledger.due("a", Long.MAX_VALUE, 1).get(0), 200, T0);

        reopen();

        assertThat(ledger.counts("a", T0 + 1000)).isEqualTo(new DestinationBacklog(1, 0, 900));
        assertThat(ledger.counts("b", T0 + 1000)).isEqualTo(new DestinationBacklog(0, 1, 0));
        assertThat(ledger.destinations()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void pausedStateSurvivesARestart() {
        ledger.setPaused("a", true, T0);
        ledger.setPaused("b", true, T0);
        ledger.setPaused("b", false, T0 + 1);

        reopen();

        assertThat(ledger.pausedDestinations()).containsExactly("a");
    }

    @Test
    void thePausedSetKeepsOneClassWhateverItsSizeSoAPauseDoesNotChangeTheTypeItsCallersSee() {
        Class<?> none = ledger.pausedDestinations().getClass();
        ledger.setPaused("a", true, T0);
        Class<?> one = ledger.pausedDestinations().getClass();
        ledger.setPaused("b", true, T0);
        ledger.setPaused("c", true, T0);
        Class<?> three = ledger.pausedDestinations().getClass();
        assertThat(ledger.pausedDestinations()).containsExactlyInAnyOrder("a", "b", "c");
        reopen();
        Class<?> reread = ledger.pausedDestinations().getClass();

        assertThat(List.of(one, three, reread)).containsOnly(none);
        assertThat(ledger.mayBePaused("b")).isTrue();
        assertThat(ledger.mayBePaused("d")).isFalse();
        assertThatThrownBy(() -> ledger.pausedDestinations().add("d")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void failingStoreRefusesLedgerWrites() {
        commit("k1", "a");
        DeliveryRow row = only("a", T0);
        store.failWrites(true);
        assertThatThrownBy(() -> ledger.markDelivered(row, 200, T0)).isInstanceOf(HookStoreException.class);
        assertThat(store.isHealthy()).isFalse();
        store.failWrites(false);
        assertThat(ledger.due("a", T0, 10)).containsExactly(row);
    }

    // ---------------------------------------------------------------- retention

    @Test
    void retentionDeletesOldFinishedHooksAndNeverOneWithAPendingDelivery() {
        String none = commit("k0");
        String delivered = commit("k1", "a");
        ledger.markDelivered(only("a", T0), 200, T0);
        String pending = commit("k2", "a");
        String dead = commit("k3", "a");
        ledger.markDead(ledger.due("a", T0, 2).get(1), "max_attempts", true, 500, null, T0);
        String mixed = commit("k4", "a", "b");
        ledger.markDelivered(ledger.due("a", T0, 2).get(1), 200, T0);
        ledger.markDead(only("b", T0), "permanent_status", true, 410, null, T0);
        wall.set(T0 + 2000);
        String newest = commit("k5", "a");

        // hooks kept 1 s, dead letters 5 s: at T0 + 2 s only the finished hooks without a dead letter go
        RetentionResult first = ledger.retentionPass(T0 + 2000, 1000, 5000, 100);

        assertThat(first).isEqualTo(new RetentionResult(5, 2, 0, false));
        assertThat(store.get(none)).isEmpty();
        assertThat(store.get(delivered)).isEmpty();
        assertThat(ledger.deliveries(delivered)).isEmpty();
        assertThat(List.of(pending, dead, mixed, newest)).allSatisfy(id -> assertThat(store.get(id)).isPresent());
        assertThat(store.findDuplicate("acme", "gh", "k1", T0 + 2000)).as("dedupe entries expire on their own")
                .contains(delivered);

        // at T0 + 6 s the dead letters expire too, and with them their hooks; pending ones stay
        RetentionResult second = ledger.retentionPass(T0 + 6000, 1000, 5000, 100);

        assertThat(second).isEqualTo(new RetentionResult(4, 2, 2, false));
        assertThat(second.deleted()).isEqualTo(4);
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(pending, newest);
        assertThat(ledger.counts("a", T0 + 6000)).isEqualTo(new DestinationBacklog(2, 0, 6000));
        assertThat(ledger.counts("b", T0 + 6000)).isEqualTo(new DestinationBacklog(0, 0, 0));
        assertThat(ledger.deadLetters(null, null, 10).rows()).isEmpty();
        assertThat(ledger.retentionPass(T0 + 6000, 1000, 5000, 100)).isEqualTo(new RetentionResult(2, 0, 0, false));
    }

    /** Issue 46, point 4: while the store is full, delivered hooks go before their retention; nothing else does. */
    @Test
    void aFullStoreDeletesDeliveredHooksBeforeTheirRetentionAndNothingElse() {
        String delivered = commit("k1", "a");
        ledger.markDelivered(only("a", T0), 200, T0);
        String pending = commit("k2", "a");
        String dead = commit("k3", "b");
        ledger.markDead(only("b", T0), "max_attempts", true, 500, null, T0);
        String none = commit("k4");
        String alsoDelivered = commit("k5", "a");
        ledger.markDelivered(ledger.due("a", T0, 2).get(1), 200, T0);

        assertThat(ledger.retentionPass(T0 + 1, 3_600_000, 3_600_000, 100)).as("not full: all too young")
                .isEqualTo(new RetentionResult(0, 0, 0, false));
        assertThat(ledger.retentionPass(T0 + 1, 3_600_000, 3_600_000, 100, true))
                .isEqualTo(new RetentionResult(5, 2, 0, false, 2));

        assertThat(store.get(delivered)).isEmpty();
        assertThat(store.get(alsoDelivered)).isEmpty();
        assertThat(List.of(pending, dead, none)).allSatisfy(id -> assertThat(store.get(id)).isPresent());
        assertThat(ledger.counts("a", T0 + 1).pending()).isEqualTo(1);
    }

    @Test
    void deadLetterOlderThanItsRetentionGoesWhileItsHookIsStillYoung() {
        String id = commit("k1", "a", "b");
        ledger.markDead(only("a", T0), "max_age", false, null, null, T0);

        RetentionResult r = ledger.retentionPass(T0 + 10, 60_000, 10, 100);

        assertThat(r).isEqualTo(new RetentionResult(1, 0, 1, false));
        assertThat(ledger.deliveries(id)).extracting(DeliveryRow::destination).containsExactly("b");
        assertThat(store.get(id)).isPresent();
        assertThat(ledger.counts("a", T0)).isEqualTo(new DestinationBacklog(0, 0, 0));
    }

    @Test
    void retentionWorkIsBoundedPerPassAndContinuesWhereItStopped() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(commit("k" + i));
        }
        long later = T0 + 10_000;

        assertThat(ledger.retentionPass(later, 0, 0, 2)).isEqualTo(new RetentionResult(2, 2, 0, true));
        assertThat(ledger.retentionPass(later, 0, 0, 2)).isEqualTo(new RetentionResult(2, 2, 0, true));
        // the newest hook goes too: the commit sequence resumes above the floor retention keeps
        assertThat(ledger.retentionPass(later, 0, 0, 2)).isEqualTo(new RetentionResult(1, 1, 0, false));
        assertThat(store.after(null, 10).hooks()).isEmpty();

        reopen();
        wall.set(later);
        String next = commit("k9");
        assertThat(next).isGreaterThan(ids.get(4));
        assertThat(store.after(null, 10).hooks()).extracting(StoredHook::id).containsExactly(next);
    }

    /**
     * Issue 46, point 5: retention kept the newest hook so that the commit sequence could
     * resume after it at open, and on a quiet node that hook (its body with whatever it holds)
     * outlived {@code retention.hooks_seconds} for ever. The sequence is kept apart now.
     */
    @Test
    void theNewestHookIsDeletedPastItsRetentionAndNumbersAndIdsStillRiseAfterAReopen() {
        commit("k1");
        String newest = commit("k2");
        long newestSeq = seqOf(newest);

        assertThat(ledger.retentionPass(T0 + 10_000, 1000, 1000, 100)).isEqualTo(new RetentionResult(2, 2, 0, false));
        assertThat(store.get(newest)).as("the newest hook past its retention").isEmpty();
        assertThat(store.after(null, 10).hooks()).isEmpty();

        reopen(); // the wall clock has not moved: the next id is in the deleted one's millisecond
        String next = commit("k3");
        assertThat(next).as("ids rise past a deleted newest hook").isGreaterThan(newest);
        assertThat(seqOf(next)).as("numbers too").isEqualTo(newestSeq + 1);

        assertThat(ledger.retentionPass(T0 + 10_000, 1000, 1000, 100)).isEqualTo(new RetentionResult(1, 1, 0, false));
        reopen();
        assertThat(seqOf(commit("k4"))).isEqualTo(newestSeq + 2);
    }

    private long seqOf(String id) {
        byte[] seq = store.database().read(f -> f.db().get(f.hookIds(), Codec.uuid(java.util.UUID.fromString(id))));
        assertThat(seq).as("the id entry of " + id).isNotNull();
        return Codec.u64(seq);
    }

    @Test
    void retentionRacingDispatchersAndRedeliveriesNeverLosesAPendingDelivery() throws Exception {
        int hooks = 300;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < hooks; i += 10) {
            List<PendingHook> batch = new ArrayList<>();
            for (int j = i; j < i + 10; j++) {
                batch.add(Hooks.hook("k" + j).withDestinations(List.of("a")));
            }
            store.commit(batch).forEach(r -> ids.add(r.id()));
        }
        long now = T0 + 1_000_000;
        java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger redelivered = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean redeliveriesDone = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Runnable dispatcher = () -> {
            await(go);
            while (true) {
                boolean done = redeliveriesDone.get(); // read before due: an empty read after it means drained
                List<DeliveryRow> due = ledger.due("a", now, 8);
                if (due.isEmpty() && done) {
                    return;
                }
                for (DeliveryRow r : due) {
                    if (r.attempts() == 0 && r.hookId().hashCode() % 3 == 0) {
                        ledger.recordAttempt(r, 503, null, now, now);
                    } else if (ledger.markDelivered(r, 200, now)) {
                        delivered.incrementAndGet();
                    }
                }
            }
        };
        Runnable redeliverer = () -> {
            await(go);
            java.util.Random random = new java.util.Random(42);
            // Until 100 redeliveries or a bounded number of looks: on a busy machine the
            // dispatchers may not have delivered anything yet during the first few hundred.
            for (int i = 0; i < 200_000 && redelivered.get() < 100; i++) {
                String id = ids.get(random.nextInt(hooks));
                List<DeliveryRow> rows = ledger.deliveries(id);
                // only this thread makes a row pending again, so a row seen delivered stays delivered (or is deleted)
                if (rows.size() == 1 && rows.get(0).state() == DeliveryState.DELIVERED
                        && ledger.redeliver(id, null, now).isPresent()) {
                    redelivered.incrementAndGet();
                }
            }
            redeliveriesDone.set(true);
        };
        java.util.concurrent.atomic.AtomicInteger deletedHooks = new java.util.concurrent.atomic.AtomicInteger();
        Runnable retention = () -> {
            await(go);
            // Hold retention back until a few redeliveries have happened: with retention at zero
            // seconds a delivered row may otherwise be deleted before the redeliverer ever sees
            // it, and the race this test is about would not be run at all on a slow machine.
            while (redelivered.get() < 10 && !redeliveriesDone.get()) {
                Thread.onSpinWait();
            }
            while (!redeliveriesDone.get() || ledger.counts("a", now).pending() > 0) {
                deletedHooks.addAndGet(ledger.retentionPass(now, 0, 0, 16).hooksDeleted());
            }
        };
        List<Thread> threads = List.of(new Thread(dispatcher), new Thread(dispatcher), new Thread(redeliverer), new Thread(retention));
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
            assertThat(t.isAlive()).isFalse();
        }

        assertThat(redelivered.get()).as("some redeliveries raced retention").isPositive();
        assertThat(delivered.get()).as("every pending row, from a commit or a redelivery, was delivered exactly once")
                .isEqualTo(hooks + redelivered.get());
        // The racing thread may have stopped mid-cycle: the first drain finishes that cycle
        // (from its cursor to the end), the next ones start from the first hook, until a whole
        // cycle deletes nothing.
        int deletedInCycle;
        do {
            deletedInCycle = 0;
            RetentionResult last;
            do {
                last = ledger.retentionPass(now, 0, 0, 1000);
                deletedInCycle += last.hooksDeleted();
            } while (last.more());
            deletedHooks.addAndGet(deletedInCycle);
        } while (deletedInCycle > 0);
        assertThat(deletedHooks.get()).isEqualTo(hooks); // the newest too (issue 46, point 5)
        assertThat(ledger.counts("a", now)).isEqualTo(new DestinationBacklog(0, 0, 0));
    }

    private static void await(java.util.concurrent.CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- size and format

    @Test
    void approximateBytesGrowsWithTheData() {
        long empty = store.approximateBytes();
        byte[] body = new byte[64 * 1024];
        Arrays.fill(body, (byte) 'x');
        for (int i = 0; i < 16; i++) {
            store.commit(List.of(new PendingHook("acme", "gh", "k" + i, T0, null, body, List.of("a"))));
        }

        assertThat(empty).isGreaterThanOrEqualTo(0);
        assertThat(store.approximateBytes()).isGreaterThanOrEqualTo(empty + 16L * body.length);
    }

    @Test
    void aStoreOfALaterFormatIsRefusedNamingTheDirAndTheFormats() {
        Path later = dir.resolve("later");
        try (RocksHookStore other = RocksHookStore.open(later)) {
            other.database().controlWrite(rocks -> {
                rocks.db().put(rocks.meta(), rocks.syncWrite(), "format".getBytes(StandardCharsets.UTF_8), Codec.u64(3));
                return null;
            });
        }

        assertThatThrownBy(() -> RocksHookStore.open(later)).isInstanceOf(HookStoreException.class)
                .hasMessageContaining(later.toString()).hasMessageContaining("reads formats 1 (upgraded at open) and 2");
    }

    @Test
    void formatOneStoreWithoutDeliveryFamiliesOpensAndIsUpgraded() throws Exception {
        store.close();
        Path old = dir.resolve("old");
        java.nio.file.Files.createDirectories(old);
        List<String> oldFamilies = List.of("hooks", "hook_ids", "dedupe", "dedupe_expiry", "overrides", "audit", "meta");
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
             ColumnFamilyOptions cf = new ColumnFamilyOptions()) {
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf));
            oldFamilies.forEach(n -> descriptors.add(new ColumnFamilyDescriptor(n.getBytes(StandardCharsets.UTF_8), cf)));
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (RocksDB db = RocksDB.open(o, old.toString(), descriptors, handles)) {
                db.put(handles.get(7), "format".getBytes(StandardCharsets.UTF_8), Codec.u64(1));
                handles.forEach(ColumnFamilyHandle::close);
            }
        }

        store = RocksHookStore.open(old, RocksHookStore.Options.defaults().withWallClock(wall::get));
        ledger = store.deliveries();
        String id = commit("k1", "a");
        assertThat(ledger.deliveries(id)).hasSize(1);
        store.close();
        store = RocksHookStore.open(old, RocksHookStore.Options.defaults().withWallClock(wall::get));
        ledger = store.deliveries();
        assertThat(ledger.counts("a", T0).pending()).isEqualTo(1);
        long format = store.database().<Long>read(rocks -> Codec.u64(rocks.db().get(rocks.meta(),
                "format".getBytes(StandardCharsets.UTF_8))));
        assertThat(format).isEqualTo(2L);
    }
}

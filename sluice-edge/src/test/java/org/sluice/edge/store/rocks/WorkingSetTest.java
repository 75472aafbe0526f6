package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.WorkingSet;

/**
 * The RocksDB store as a working set of the fleet's log: hooks committed under the log's
 * ids, a record seen twice stored once, and hooks forgotten with every row and count they
 * had, on a real store in a temp dir.
 */
class WorkingSetTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;
    private RocksHookStore store;

    @BeforeEach
    void open() {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(() -> T0));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static PendingHook hook(String body, String dedupeKey, String... destinations) {
        return new PendingHook("acme", "github", dedupeKey, T0 - 5, Map.of("content-type", "application/json"),
                body.getBytes(StandardCharsets.UTF_8), List.of(destinations));
    }

    /** An id made at {@code millis}, as the log's intake would make it. */
    private static UUID logId(long millis, long low) {
        return new UUID((millis << 16) | (0x7L << 12), (0x2L << 62) | low);
    }

    @Test
    void aHookIsStoredUnderTheLogsIdWithItsPendingDeliveries() {
        UUID id = logId(T0 - 1_000, 7);
        List<CommitResult> r = store.commitWithIds(List.of(hook("{\"a\":1}", null, "crm", "audit")), List.of(id));

        assertThat(r).containsExactly(CommitResult.accepted(id.toString()));
        assertThat(store.get(id.toString())).hasValueSatisfying(h -> {
            assertThat(h.body()).isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
            assertThat(h.receivedAtMillis()).isEqualTo(T0 - 5);
        });
        assertThat(store.deliveries().deliveries(id.toString())).extracting(DeliveryRow::destination, DeliveryRow::state)
                .containsExactlyInAnyOrder(tuple("crm", DeliveryState.PENDING),
                        tuple("audit", DeliveryState.PENDING));
        assertThat(store.deliveries().counts("crm", T0).pending()).isEqualTo(1);
    }

    @Test
    void aRecordSeenAgainIsStoredOnceAndItsRowsKeepTheirState() {
        UUID a = logId(T0 - 2_000, 1);
        UUID b = logId(T0 - 3_000, 2); // older than a, committed after it: ids need not follow commit order
        store.commitWithIds(List.of(hook("a", null, "crm")), List.of(a));
        DeliveryRow row = store.deliveries().deliveries(a.toString()).get(0);
        assertThat(store.deliveries().markDelivered(row, 200, T0)).isTrue();

        List<CommitResult> again = store.commitWithIds(List.of(hook("a", null, "crm"), hook("b", null, "crm"),
                hook("b", null, "crm")), List.of(a, b, b));

        assertThat(again).containsExactly(CommitResult.duplicate(a.toString()), CommitResult.accepted(b.toString()),
                CommitResult.duplicate(b.toString()));
        assertThat(store.deliveries().deliveries(a.toString())).extracting(DeliveryRow::state)
                .containsExactly(DeliveryState.DELIVERED);
        assertThat(store.deliveries().counts("crm", T0).pending()).isEqualTo(1);
        assertThat(LedgerChecks.verify(store.deliveries())).isEmpty();
    }

    @Test
    void givenIdsSkipTheDedupeIndex() {
        UUID a = logId(T0 - 2_000, 1);
        UUID b = logId(T0 - 1_000, 2);
        List<CommitResult> r = store.commitWithIds(List.of(hook("a", "k1", "crm"), hook("b", "k1", "crm")), List.of(a, b));

        assertThat(r).extracting(CommitResult::status).containsOnly(CommitResult.Status.ACCEPTED);
        assertThat(store.findDuplicate("acme", "github", "k1", T0)).isEmpty();
    }

    @Test
    void forgottenHooksLeaveNoRowNoCountAndCanBeTakenAgain() {
        UUID a = logId(T0 - 2_000, 1);
        UUID b = logId(T0 - 1_000, 2);
        UUID c = logId(T0 - 500, 3);
        store.commitWithIds(List.of(hook("a", null, "crm", "audit"), hook("b", null, "crm"), hook("c", null, "crm")),
                List.of(a, b, c));
        DeliveryRow bRow = store.deliveries().deliveries(b.toString()).get(0);
        assertThat(store.deliveries().markDead(bRow, "permanent_status", true, 410, null, T0)).isTrue();

        int gone = store.forget(List.of(a.toString(), b.toString(), "not-a-uuid", logId(T0, 9).toString()));

        assertThat(gone).isEqualTo(2);
        assertThat(store.get(a.toString())).isEmpty();
        assertThat(store.deliveries().deliveries(b.toString())).isEmpty();
        assertThat(store.deliveries().counts("crm", T0).pending()).isEqualTo(1);
        assertThat(store.deliveries().counts("crm", T0).dead()).isZero();
        assertThat(store.deliveries().counts("audit", T0).pending()).isZero();
        assertThat(store.deliveries().due("crm", T0, 10)).extracting(DeliveryRow::hookId).containsExactly(c.toString());
        assertThat(LedgerChecks.verify(store.deliveries())).isEmpty();

        List<CommitResult> back = store.commitWithIds(List.of(hook("a", null, "crm")), List.of(a));
        assertThat(back).containsExactly(CommitResult.accepted(a.toString()));
        assertThat(store.deliveries().deliveries(a.toString())).extracting(DeliveryRow::state, DeliveryRow::attempts)
                .containsExactly(tuple(DeliveryState.PENDING, 0));
        assertThat(LedgerChecks.verify(store.deliveries())).isEmpty();
    }

    @Test
    void aReplayGivesHeldHooksAFreshDeliveryInOneCallWhateverTheirRowWas() {
        UUID delivered = logId(T0 - 4_000, 1);
        UUID dead = logId(T0 - 3_000, 2);
        UUID pending = logId(T0 - 2_000, 3);
        UUID none = logId(T0 - 1_000, 4); // held, with no row to crm
        store.commitWithIds(List.of(hook("d", null, "crm", "audit"), hook("x", null, "crm"), hook("p", null, "crm"),
                hook("n", null, "audit")), List.of(delivered, dead, pending, none));
        DeliveryRow crm = store.deliveries().deliveries(delivered.toString()).stream()
                .filter(r -> r.destination().equals("crm")).findFirst().orElseThrow();
        assertThat(store.deliveries().markDelivered(crm, 200, T0)).isTrue();
        DeliveryRow x = store.deliveries().deliveries(dead.toString()).get(0);
        assertThat(store.deliveries().markDead(x, "permanent_status", true, 410, null, T0)).isTrue();
        DeliveryRow p = store.deliveries().deliveries(pending.toString()).get(0);
        assertThat(store.deliveries().recordAttempt(p, 503, null, T0 + 60_000, T0)).isTrue();

        List<String> fresh = store.redeliverHeld(List.of(delivered.toString(), dead.toString(), pending.toString(),
                none.toString(), pending.toString(), logId(T0, 9).toString(), "not-a-uuid"), "crm", T0 + 1);

        assertThat(fresh).containsExactly(delivered.toString(), dead.toString(), pending.toString(), none.toString());
        for (UUID id : List.of(delivered, dead, pending, none)) {
            assertThat(store.deliveries().deliveries(id.toString())).filteredOn(r -> r.destination().equals("crm"))
                    .extracting(DeliveryRow::state, DeliveryRow::attempts, DeliveryRow::nextAttemptAtMillis)
                    .containsExactly(tuple(DeliveryState.PENDING, 0, T0 + 1));
        }
        assertThat(store.deliveries().deliveries(delivered.toString())).filteredOn(r -> r.destination().equals("audit"))
                .extracting(DeliveryRow::state).containsExactly(DeliveryState.PENDING); // the other row untouched
        assertThat(store.deliveries().counts("crm", T0 + 1).pending()).isEqualTo(4);
        assertThat(store.deliveries().counts("crm", T0 + 1).dead()).isZero();
        assertThat(store.deliveries().due("crm", T0 + 1, 10)).hasSize(4);
        assertThat(LedgerChecks.verify(store.deliveries())).isEmpty();
    }

    @Test
    void idsAndHooksMustPair() {
        assertThatThrownBy(() -> store.commitWithIds(List.of(hook("a", null, "crm")), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 ids for 1 hooks");
    }

    @Test
    void aCarriedDeliveryStartsWhereItStood() {
        UUID a = logId(T0 - 2_000, 1);
        List<CommitResult> r = store.commitWithIds(List.of(hook("a", null, "crm", "audit")), List.of(a),
                List.of(Map.of("crm", new WorkingSet.Carried(3, T0 + 60_000))));

        assertThat(r).containsExactly(CommitResult.accepted(a.toString()));
        assertThat(store.deliveries().deliveries(a.toString()))
                .extracting(DeliveryRow::destination, DeliveryRow::attempts, DeliveryRow::nextAttemptAtMillis)
                .containsExactlyInAnyOrder(tuple("crm", 3, T0 + 60_000), tuple("audit", 0, T0));
        assertThat(store.deliveries().due("crm", T0, 10)).isEmpty();
        assertThat(store.deliveries().due("crm", T0 + 60_000, 10)).extracting(DeliveryRow::nextAttemptNumber)
                .containsExactly(4);
    }
}

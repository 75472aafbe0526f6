package org.sluice.edge.delivery;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;

/**
 * The order of a {@code fifo} destination: per (tenant, source), the hooks with a pending
 * delivery to it, in commit order. Only the first of each (its head) may be attempted; a
 * failing head holds back the later hooks of its (tenant, source) and nothing else.
 *
 * <h2>How it is kept</h2>
 * In memory, rebuilt from the ledger: {@link #refresh()} follows the destination's pending
 * index ({@link DeliveryLedger#pendingInOrder}, commit order) from a cursor, reading each
 * new hook once for its tenant and source. At start the cursor is 0, so the first pass
 * rebuilds everything pending (after a restart too). A hook leaves when the dispatcher
 * marks its delivery delivered or dead ({@link #finished}). Each (tenant, source) is
 * ordered by the store's commit sequence number, not by the hook id: a working set of the
 * fleet's log commits hooks in the log's order under ids that other nodes made on their
 * own clocks, so two nodes' ids of one (tenant, source) need not sort in the log's order
 * (docs/fleet-log.md, "Keys, partitions and order"). On a single node the two orders agree.
 *
 * <p>A redelivery makes an old hook pending again behind the cursor. The ledger's pending
 * counter then exceeds what is tracked, and the next refresh rescans the index from the
 * start (known hooks cost no read). Until that refresh, a redelivered hook that is older
 * than a head is not yet ordered before it.
 *
 * <p>Memory: one entry per pending delivery to the destination. Thread-safe: the pass
 * (the driver, under the dispatcher's pump lock, which also records answers and so calls
 * {@link #finished}) and, when no driver runs, the answer executor ({@link #finished}) share
 * the maps under this object's monitor, held for map updates only (store reads happen outside).
 */
final class FifoHeads {

    /** Due heads, earliest due first, and when the next head comes due after now (-1: none). */
    record Due(List<DeliveryRow> rows, long nextDueMillis) {
    }

    private record Tracked(String origin, long seq) {
    }

    private static final int PAGE = 1024;
    private static final int MAX_PAGES_PER_REFRESH = 16;

    private final DeliveryLedger ledger;
    private final HookStore store;
    private final String destination;

    /** Per (tenant, source): its pending hooks by commit sequence number. */
    @GuardedBy("this")
    private final Map<String, TreeMap<Long, String>> byOrigin = new HashMap<>();
    /** Per hook tracked: its (tenant, source) and sequence number. */
    @GuardedBy("this")
    private final Map<String, Tracked> originOf = new HashMap<>();
    private long cursor; // only the pass moves it

    FifoHeads(DeliveryLedger ledger, HookStore store, String destination) {
        this.ledger = ledger;
        this.store = store;
        this.destination = destination;
    }

    /** The heads due at {@code nowMillis}, at most {@code limit}, but those {@code out} names (their attempt is out). */
    Due due(long nowMillis, int limit, Predicate<String> out) {
        refresh();
        List<String> heads;
        synchronized (this) {
            heads = new ArrayList<>(byOrigin.size());
            for (TreeMap<Long, String> ids : byOrigin.values()) {
                heads.add(ids.firstEntry().getValue());
            }
        }
        List<DeliveryRow> due = new ArrayList<>();
        long next = -1;
        for (String id : heads) {
            if (out.test(id)) {
                continue; // its answer wakes the driver
            }
            Optional<DeliveryRow> row = rowOf(id);
            if (row.isEmpty()) {
                finished(id); // no longer pending (should not happen: only the dispatcher finishes rows)
                continue;
            }
            long at = row.get().nextAttemptAtMillis();
            if (at <= nowMillis) {
                due.add(row.get());
            } else if (next < 0 || at < next) {
                next = at;
            }
        }
        due.sort(Comparator.comparingLong(DeliveryRow::nextAttemptAtMillis).thenComparing(DeliveryRow::hookId));
        if (due.size() > limit) {
            due = new ArrayList<>(due.subList(0, limit));
        }
        return new Due(due, next);
    }

    /** The delivery of {@code hookId} is delivered or dead: the next hook of its (tenant, source) becomes the head. */
    synchronized void finished(String hookId) {
        Tracked t = originOf.remove(hookId);
        if (t != null) {
            TreeMap<Long, String> ids = byOrigin.get(t.origin());
            ids.remove(t.seq());
            if (ids.isEmpty()) {
                byOrigin.remove(t.origin());
            }
        }
    }

    /** Hooks tracked; for tests. */
    synchronized int size() {
        return originOf.size();
    }

    /** Takes in pending deliveries committed (or redelivered) since the last refresh. */
    void refresh() {
        long pendingBefore = ledger.counts(destination, 0).pending();
        scanFrom(cursor);
        boolean missing;
        synchronized (this) {
            missing = pendingBefore > originOf.size();
        }
        if (missing) {
            scanFrom(0); // a redelivered row behind the cursor
        }
    }

    private void scanFrom(long fromSeq) {
        long at = fromSeq;
        for (int page = 0; page < MAX_PAGES_PER_REFRESH; page++) {
            List<DeliveryLedger.PendingRef> refs = ledger.pendingInOrder(destination, at, PAGE);
            for (DeliveryLedger.PendingRef ref : refs) {
                boolean known;
                synchronized (this) {
                    known = originOf.containsKey(ref.hookId());
                }
                if (!known) {
                    Optional<StoredHook> hook = store.get(ref.hookId());
                    long seq = ref.seq();
                    hook.ifPresent(h -> track(ref.hookId(), h.tenant() + '\n' + h.source(), seq));
                }
                at = ref.seq();
            }
            if (at > cursor) {
                cursor = at;
            }
            if (refs.size() < PAGE) {
                return;
            }
        }
    }

    private synchronized void track(String hookId, String origin, long seq) {
        if (originOf.putIfAbsent(hookId, new Tracked(origin, seq)) == null) {
            byOrigin.computeIfAbsent(origin, o -> new TreeMap<>()).put(seq, hookId);
        }
    }

    private Optional<DeliveryRow> rowOf(String hookId) {
        for (Iterator<DeliveryRow> it = ledger.deliveries(hookId).iterator(); it.hasNext(); ) {
            DeliveryRow r = it.next();
            if (r.destination().equals(destination)) {
                return r.state() == DeliveryState.PENDING ? Optional.of(r) : Optional.empty();
            }
        }
        return Optional.empty();
    }
}

package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DeliveryLedger.Transition;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;
import org.sluice.edge.store.rocks.LedgerStore.LedgerFamilies;

/**
 * The delivery ledger's row writes for the dispatcher and the commit: a new hook's pending
 * rows ({@link #schedule}, in the commit's batch) and the transitions of rows already
 * written ({@link #apply}, under the ledger's lock). See {@link RocksDeliveryLedger}.
 */
final class LedgerTransitions {

    private final LedgerState state;

    LedgerTransitions(LedgerState state) {
        this.state = state;
    }

    /**
     * Adds a new hook's pending rows to the commit's batch, and keeps the hook in memory for
     * the dispatcher's read if a row is left unclaimed and it fits ({@link SeqCache}); the
     * caller holds the commit lock.
     * A row that {@code claims} claims is written due at the claim's expiry and added to
     * {@code claimed}; the others are due at {@code nowMillis}, or for a delivery
     * {@code carried} over from an earlier owner (null: none) with its attempts, at its due time. Each row is added to
     * {@code scheduled} with its due time, for {@link #scheduled} after the write.
     */
    void schedule(WriteBatch wb, LedgerFamilies f, long seq, UUID id, PendingHook hook, Map<String, WorkingSet.Carried> carried,
                  long nowMillis, CommitClaims claims, List<CommitClaims.Claimed> claimed, List<NewRow> scheduled)
            throws RocksDBException {
        List<String> destinations = hook.destinations();
        if (destinations.isEmpty()) {
            return;
        }
        byte[] idBytes = Codec.uuid(id);
        long writes = state.othersWrites.get(); // the rows are new: nothing else can have written them yet
        StoredHook stored = hook.stored(id.toString());
        int unclaimed = 0;
        for (String d : destinations) {
            WorkingSet.Carried from = carried == null ? null : carried.get(d);
            int attempts = from == null ? 0 : from.attempts();
            long due = from == null ? nowMillis : Math.max(nowMillis, from.dueMillis());
            long until = claims == null || due > nowMillis ? -1 : claims.claim(d, nowMillis); // not due yet: the scan finds it
            DeliveryRow row = new DeliveryRow(stored.id(), d, DeliveryState.PENDING, attempts, until >= 0 ? until : due,
                    nowMillis, nowMillis, null, null, null, null, null);
            wb.put(f.deliveries(), DeliveryCodec.rowKey(seq, d), DeliveryCodec.row(id, row));
            wb.put(f.due(), DeliveryCodec.dueKey(d, row.nextAttemptAtMillis(), seq), LedgerState.EMPTY);
            wb.put(f.byDestination(), DeliveryCodec.indexKey(DeliveryState.PENDING, d, seq), idBytes);
            scheduled.add(new NewRow(d, row.nextAttemptAtMillis(), seq));
            if (until >= 0) {
                claimed.add(new CommitClaims.Claimed(stored, row, seq, writes));
            } else {
                unclaimed++;
            }
        }
        if (unclaimed > 0) {
            state.seqCache.put(id, seq, stored, unclaimed); // the dispatcher reads it later, once per such row: keep it for those reads
        } else {
            state.seqCache.remember(id, seq); // every row went out with its claim, hook and all
        }
    }

    /** A pending row a commit wrote: its destination, when it is due (epoch ms), and its hook's sequence number. */
    record NewRow(String destination, long dueMillis, long seq) {}

    /**
     * After the commit's write succeeded: counts its pending rows and lowers each
     * destination's floor to the row's own due time. A row claimed at its commit is due at
     * the claim's expiry, not now: lowering the floor to now would make the next scan seek
     * from now and step over the deleted due entries of every claim answered since (one per
     * delivered hook over the last {@code timeout_ms} + 30 s), on every pass.
     */
    void scheduled(List<NewRow> rows) {
        for (NewRow r : rows) {
            state.counter(r.destination()).pending.incrementAndGet();
            state.floor(r.destination()).lower(r.dueMillis());
            state.pendingFloor(r.destination()).lower(r.seq());
        }
    }

    /**
     * Applies {@code transitions} in order, in ONE write (not fsynced), and returns for each
     * whether it applied. Each applies only while the row is still PENDING with the
     * {@code attempts} and {@code scheduled_at} it was decided on (as seen by the earlier
     * transitions of the same call), else it changes nothing. The dispatcher records the
     * claims of one pass, and the answers that came back together, this way: a ledger write
     * waits for the store's fsync in progress (RocksDB writes in groups, and a commit's group
     * is fsynced), so one write per row capped delivery at one row per fsync.
     */
    boolean[] apply(List<Transition> transitions) {
        boolean[] applied = new boolean[transitions.size()];
        if (transitions.isEmpty()) {
            return applied;
        }
        return state.store.write(false, (f, writeOptions) -> {
            RocksDB db = f.db();
            state.lock.lock();
            try {
                record RowName(String hookId, String destination) {
                }
                Map<String, Long> seqs = new HashMap<>();
                Map<RowName, DeliveryRow> latest = new HashMap<>(); // the row as this call leaves it
                List<DeliveryRow> moved = new ArrayList<>(); // (cur, next) pairs
                try (WriteBatch wb = new WriteBatch()) {
                    for (int i = 0; i < applied.length; i++) {
                        DeliveryRow seen = transitions.get(i).seen();
                        UUID uuid = Codec.parseHookId(seen.hookId());
                        if (uuid == null) {
                            continue;
                        }
                        Transition t = transitions.get(i);
                        boolean exact = t.writes() >= 0 && t.writes() == state.othersWrites.get(); // under lock: no other write runs
                        // a hook's number never changes: the transition's holds even when the row must be read again
                        Long seq = t.seq() >= 0 ? Long.valueOf(t.seq()) : seqs.get(seen.hookId());
                        if (seq == null) {
                            seq = state.rowsSeqOf(f, uuid);
                            if (seq == null) {
                                continue;
                            }
                            seqs.put(seen.hookId(), seq);
                        }
                        String d = seen.destination();
                        RowName rowName = new RowName(seen.hookId(), d);
                        DeliveryRow cur = latest.get(rowName);
                        if (cur == null && exact) {
                            cur = seen; // stored as read: no write but this call's could have changed it
                        }
                        if (cur == null) {
                            byte[] v = db.get(f.deliveries(), DeliveryCodec.rowKey(seq, d));
                            if (v == null) {
                                continue;
                            }
                            cur = DeliveryCodec.row(d, v);
                        }
                        if (cur.state() != DeliveryState.PENDING || cur.attempts() != seen.attempts()
                                || cur.scheduledAtMillis() != seen.scheduledAtMillis()) {
                            continue;
                        }
                        DeliveryRow next = transitions.get(i).applyTo(cur);
                        LedgerState.replace(wb, f, uuid, seq, cur, next);
                        latest.put(rowName, next);
                        moved.add(cur);
                        moved.add(next);
                        applied[i] = true;
                    }
                    if (wb.count() > 0) {
                        db.write(writeOptions, wb);
                    }
                }
                for (int i = 0; i < moved.size(); i += 2) {
                    DeliveryRow next = moved.get(i + 1);
                    state.counted(moved.get(i), next);
                    if (next.state() == DeliveryState.PENDING) {
                        // (its pending index entry is the one it had: a transition starts from PENDING)
                        state.floor(next.destination()).lower(next.nextAttemptAtMillis());
                    }
                }
                return applied;
            } finally {
                state.lock.unlock();
            }
        });
    }
}

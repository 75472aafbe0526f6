package org.sluice.edge.store.rocks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.PendingHook;

/**
 * The delivery ledger's operator action on rows: a redelivery, fsynced and answered. (The
 * other operator action, a pause, is {@link RocksPauses}.) And the working set's form of it
 * for a replay on the fleet's log: many hooks in one write, not fsynced
 * ({@link #redeliverHeld}). See {@link RocksDeliveryLedger}.
 */
final class LedgerRedelivery {

    private final LedgerState state;

    LedgerRedelivery(LedgerState state) {
        this.state = state;
    }

    /**
     * Schedules a fresh delivery of the hook to each of {@code destinations} (every
     * destination it has a row for when null): pending, attempts from 1, due at
     * {@code nowMillis}, whatever the row's state was (a pending row starts over).
     * Fsynced: when this returns, the redelivery survives a crash.
     *
     * @return the new rows, or empty when no stored hook has this id
     */
    Optional<List<DeliveryRow>> redeliver(String hookId, Collection<String> destinations, long nowMillis) {
        UUID uuid = Codec.parseHookId(hookId);
        if (uuid == null) {
            return Optional.empty();
        }
        List<String> named = destinations == null ? null : PendingHook.checkDestinations(List.copyOf(destinations));
        return state.store.write(true, (f, writeOptions) -> {
            RocksDB db = f.db();
            state.lock.lock();
            try {
                Long seq = LedgerState.seqOf(f, uuid);
                if (seq == null) {
                    return Optional.<List<DeliveryRow>>empty();
                }
                Map<String, DeliveryRow> existing = new LinkedHashMap<>();
                for (DeliveryRow r : LedgerState.rowsOf(f, seq)) {
                    existing.put(r.destination(), r);
                }
                List<String> targets = named != null ? named : List.copyOf(existing.keySet());
                List<DeliveryRow> fresh = new ArrayList<>(targets.size());
                try (WriteBatch wb = new WriteBatch()) {
                    for (String d : targets) {
                        DeliveryRow next = fresh(uuid, d, nowMillis);
                        LedgerState.replace(wb, f, uuid, seq, existing.get(d), next);
                        fresh.add(next);
                    }
                    if (wb.count() > 0) {
                        try {
                            db.write(writeOptions, wb);
                        } finally {
                            state.othersWrites.incrementAndGet(); // after the write (a row read before it is not exact)
                        }
                    }
                }
                for (DeliveryRow next : fresh) {
                    state.counted(existing.get(next.destination()), next);
                    state.floor(next.destination()).lower(next.nextAttemptAtMillis());
                    state.pendingFloor(next.destination()).lower(seq);
                }
                return Optional.of(List.copyOf(fresh));
            } finally {
                state.lock.unlock();
            }
        });
    }

    /**
     * The working set's redelivery of many hooks to one destination (a replay on the fleet's
     * log, {@code WorkingSet.redeliverHeld}): for each stored hook of {@code hookIds}, a
     * fresh delivery to {@code destination} as {@link #redeliver} makes it, the hook's other
     * rows untouched; ONE write for them all, not fsynced (the working set is disposable:
     * the log holds the hook). A hook not stored, or named twice, is passed over.
     *
     * @return the ids given a fresh delivery, in the order given
     */
    List<String> redeliverHeld(Collection<String> hookIds, String destination, long nowMillis) {
        PendingHook.checkDestination(destination);
        Set<UUID> ids = new LinkedHashSet<>();
        for (String s : hookIds) {
            UUID id = Codec.parseHookId(s);
            if (id != null) {
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        return state.store.write(false, (f, writeOptions) -> {
            state.lock.lock();
            try {
                List<DeliveryRow> before = new ArrayList<>(ids.size());
                List<DeliveryRow> after = new ArrayList<>(ids.size());
                long[] seqs = new long[ids.size()];
                try (WriteBatch wb = new WriteBatch()) {
                    for (UUID id : ids) {
                        Long seq = LedgerState.seqOf(f, id);
                        if (seq == null) {
                            continue;
                        }
                        byte[] stored = f.db().get(f.deliveries(), DeliveryCodec.rowKey(seq, destination));
                        DeliveryRow cur = stored == null ? null : DeliveryCodec.row(destination, stored);
                        DeliveryRow next = fresh(id, destination, nowMillis);
                        LedgerState.replace(wb, f, id, seq, cur, next);
                        seqs[after.size()] = seq;
                        before.add(cur);
                        after.add(next);
                    }
                    if (wb.count() > 0) {
                        try {
                            f.db().write(writeOptions, wb);
                        } finally {
                            state.othersWrites.incrementAndGet(); // after the write (a row read before it is not exact)
                        }
                    }
                }
                List<String> fresh = new ArrayList<>(after.size());
                for (int i = 0; i < after.size(); i++) {
                    state.counted(before.get(i), after.get(i));
                    state.pendingFloor(destination).lower(seqs[i]);
                    fresh.add(after.get(i).hookId());
                }
                if (!after.isEmpty()) {
                    state.floor(destination).lower(nowMillis);
                }
                return fresh;
            } finally {
                state.lock.unlock();
            }
        });
    }

    private static DeliveryRow fresh(UUID id, String destination, long now) {
        return new DeliveryRow(id.toString(), destination, DeliveryState.PENDING, 0, now, now, now,
                null, null, null, null, null);
    }
}

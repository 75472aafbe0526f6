package org.sluice.edge.store.rocks;

import org.sluice.edge.store.UuidV7;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.LongPredicate;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryLedger.Due;
import org.sluice.edge.store.DeliveryLedger.PendingRef;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryScan;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.DestinationBacklog;
import org.sluice.edge.store.PendingHook;

/**
 * The delivery ledger's reads: the due scan, a hook's rows, dead letters, a destination's
 * counts, the pending index in commit order and a replay's range walk. Each takes only the
 * store's lifecycle read lock (through {@link LedgerStore#read}), never the ledger's lock nor
 * the commit lock. See {@link RocksDeliveryLedger}.
 */
final class LedgerQueries {

    private final LedgerState state;

    LedgerQueries(LedgerState state) {
        this.state = state;
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}, skipping the rows whose sequence number {@code held} names; the
     * dispatcher's scan, {@code held} being the rows whose attempt is out. A held row's
     * entry is stepped over without reading the row or counting it towards the limit.
     *
     * <p>It seeks from the destination's due floor (see {@link ScanFloor}), past the
     * tombstones of handled rows, and stops at {@code nowMillis}: it never reads an entry
     * due later, so {@link Due#nextDueMillis()} is only known when more rows were due than
     * {@code limit}. The entries just after now are, under load, mostly deleted ones: every
     * row claimed at its commit (due again at its attempt's timeout plus a slack) whose
     * answer was recorded leaves one there, and stepping over them to find the next live
     * entry cost a pass one step per delivery of the last {@code timeout_ms} + 30 s.
     * RocksDB's upper bound lets the scan stop at the bound without stepping over what lies
     * beyond it.
     *
     * <p>The floor may rise past a held row: an attempt can be out for as long as its
     * timeout, and a floor kept below it would send every scan of that time over the
     * tombstones of everything delivered since. So whoever holds a row must, when it lets
     * the row go without a transition of {@link #apply} having changed it, call
     * {@link #unheld} (the row is then seen by the next scan).
     */
    Due dueBy(String destination, long nowMillis, int limit, LongPredicate held) {
        LedgerState.checkLimit(limit);
        PendingHook.checkDestination(destination);
        ScanFloor floor = state.floor(destination);
        long writes = state.othersWrites.get(); // before any row is read
        return state.store.read((f, unused) -> {
            RocksDB db = f.db();
            ColumnFamilyHandle rows = f.deliveries();
            byte[] prefix = DeliveryCodec.destinationPrefix(destination);
            List<Long> seqs = new ArrayList<>();
            long next = -1;
            long[] window = floor.open();
            long firstLive;
            long durable = state.store.durableUpTo(); // a row of a commit still being fsynced is not sent yet
            long bound = nowMillis == Long.MAX_VALUE ? nowMillis : nowMillis + 1;
            firstLive = bound; // nothing live below the bound but what the scan reads
            try (Slice upper = new Slice(DeliveryCodec.dueKey(destination, bound, 0));
                 ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                 RocksIterator it = db.newIterator(f.due(), options)) {
                for (it.seek(DeliveryCodec.dueKey(destination, window[0], 0)); it.isValid(); it.next()) {
                    byte[] k = it.key();
                    if (!DeliveryCodec.startsWith(k, prefix) || k.length != prefix.length + 16) {
                        break;
                    }
                    long m = DeliveryCodec.dueKeyMillis(k);
                    long seq = DeliveryCodec.dueKeySeq(k);
                    if (m <= nowMillis && held.test(seq)) {
                        continue; // out: its holder calls unheld if it lets it go unchanged
                    }
                    firstLive = Math.min(firstLive, m);
                    if (seqs.size() >= limit || m > nowMillis) {
                        next = m;
                        break;
                    }
                    if (seq <= durable) {
                        seqs.add(seq);
                    }
                }
                it.status();
            }
            floor.raise(window[1], firstLive);
            List<DeliveryRow> out = new ArrayList<>(seqs.size());
            long[] outSeqs = new long[seqs.size()];
            byte[][] keys = new byte[seqs.size()][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = DeliveryCodec.rowKey(seqs.get(i), destination);
            }
            byte[][] values = OrderedReads.read(db, rows, keys, true); // in commit order: one iterator, not a get each
            for (int i = 0; i < keys.length; i++) {
                long seq = seqs.get(i);
                byte[] v = values[i];
                if (v != null) { // a transition may have finished it since the index was read
                    DeliveryRow r = DeliveryCodec.row(destination, v);
                    // a transition since the iterator was made may also have moved it later
                    if (r.state() == DeliveryState.PENDING && r.nextAttemptAtMillis() <= nowMillis) {
                        outSeqs[out.size()] = seq;
                        out.add(r);
                    }
                }
            }
            return new Due(out, Arrays.copyOf(outSeqs, out.size()), next, writes);
        });
    }

    /** Every delivery row of the hook, by destination name; empty when the hook is unknown or has none. */
    List<DeliveryRow> deliveries(String hookId) {
        UUID uuid = Codec.parseHookId(hookId);
        if (uuid == null) {
            return List.of();
        }
        return state.store.read((f, unused) -> {
            RocksDB db = f.db();
            Long seq = LedgerState.seqOf(f, uuid);
            return seq == null ? List.<DeliveryRow>of() : LedgerState.rowsOf(f, seq);
        });
    }

    /**
     * Dead letters in hook commit order, after the hook {@code afterId} (from the first when
     * null), to {@code destination} (every destination when null). A page holds {@code limit}
     * rows, except that it never ends inside one hook: it then holds that hook's other dead
     * rows too, so paging with {@link DeadLetterPage#next()} returns each dead letter once.
     *
     * @throws IllegalArgumentException when {@code limit < 1} or no stored hook has id {@code afterId}
     */
    DeadLetterPage deadLetters(String destination, String afterId, int limit) {
        LedgerState.checkLimit(limit);
        if (destination != null) {
            PendingHook.checkDestination(destination);
        }
        return state.store.read((f, unused) -> {
            RocksDB db = f.db();
            long fromSeq = 0;
            if (afterId != null) {
                UUID uuid = Codec.parseHookId(afterId);
                Long seq = uuid == null ? null : LedgerState.seqOf(f, uuid);
                if (seq == null) {
                    throw new IllegalArgumentException("after: no stored hook has id " + afterId);
                }
                fromSeq = seq;
            }
            Collection<String> names = destination != null ? List.of(destination) : new TreeSet<>(state.counted());
            // per destination, up to limit + 1 entries after fromSeq; merged in (seq, destination) order
            record Entry(long seq, String destination) {
            }
            List<Entry> entries = new ArrayList<>();
            ColumnFamilyHandle byDest = f.byDestination();
            for (String d : names) {
                byte[] prefix = DeliveryCodec.indexPrefix(DeliveryState.DEAD, d);
                int taken = 0;
                try (RocksIterator it = db.newIterator(byDest)) {
                    for (it.seek(DeliveryCodec.indexKey(DeliveryState.DEAD, d, fromSeq + 1)); it.isValid() && taken <= limit; it.next()) {
                        byte[] k = it.key();
                        if (!DeliveryCodec.startsWith(k, prefix) || k.length != prefix.length + 8) {
                            break;
                        }
                        entries.add(new Entry(DeliveryCodec.indexKeySeq(k), d));
                        taken++;
                    }
                    it.status();
                }
            }
            entries.sort(Comparator.comparingLong(Entry::seq).thenComparing(Entry::destination));
            int end = Math.min(limit, entries.size());
            while (end > 0 && end < entries.size() && entries.get(end).seq() == entries.get(end - 1).seq()) {
                end++; // never split a hook
            }
            ColumnFamilyHandle rows = f.deliveries();
            List<DeliveryRow> page = new ArrayList<>(end);
            for (Entry e : entries.subList(0, end)) {
                byte[] v = db.get(rows, DeliveryCodec.rowKey(e.seq(), e.destination()));
                if (v != null) {
                    page.add(DeliveryCodec.row(e.destination(), v));
                }
            }
            String next = end < entries.size() && !page.isEmpty() ? page.get(page.size() - 1).hookId() : null;
            return new DeadLetterPage(page, next);
        });
    }

    /**
     * Pending and dead rows of {@code destination} (in-memory counters), and the age at
     * {@code nowMillis} of the oldest hook with a pending delivery to it (one index seek, from
     * the destination's pending floor: past the tombstones of the rows finished before the
     * previous look, see {@link LedgerState}).
     */
    /** The pending count of {@link #counts}, from the destination's counter alone (no seek). */
    long pendingCount(String destination) {
        PendingHook.checkDestination(destination);
        LedgerState.Counter c = state.counterOrNull(destination);
        return c == null ? 0 : c.pending.get();
    }

    DestinationBacklog counts(String destination, long nowMillis) {
        PendingHook.checkDestination(destination);
        LedgerState.Counter c = state.counterOrNull(destination);
        if (c == null) {
            return new DestinationBacklog(0, 0, 0);
        }
        long pending = c.pending.get();
        long dead = c.dead.get();
        ScanFloor floor = state.pendingFloor(destination);
        long oldest = state.store.read((f, unused) -> {
            RocksDB db = f.db();
            byte[] prefix = DeliveryCodec.indexPrefix(DeliveryState.PENDING, destination);
            long[] window = floor.open();
            try (RocksIterator it = db.newIterator(f.byDestination())) {
                it.seek(DeliveryCodec.indexKey(DeliveryState.PENDING, destination, window[0]));
                if (it.isValid() && DeliveryCodec.startsWith(it.key(), prefix) && it.key().length == prefix.length + 8) {
                    floor.raise(window[1], DeliveryCodec.indexKeySeq(it.key()));
                    long committed = UuidV7.millisOf(Codec.uuid(ByteBuffer.wrap(it.value())));
                    return Math.max(0, nowMillis - committed);
                }
                it.status();
                floor.raise(window[1], Long.MAX_VALUE);
                return 0L;
            }
        });
        return new DestinationBacklog(pending, dead, oldest);
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} in hook commit order,
     * after the hook of sequence number {@code afterSeq} (0: from the first). Reads only the
     * pending index (no row, no hook); a {@code fifo} dispatcher follows new commits with it.
     * Stops at the store's durable-up-to number, as pagers do (see {@link HookStore}).
     */
    List<PendingRef> pendingInOrder(String destination, long afterSeq, int limit) {
        LedgerState.checkLimit(limit);
        PendingHook.checkDestination(destination);
        return state.store.read((f, unused) -> {
            long visible = state.store.durableUpTo(); // before the iterator: a follower's cursor must not pass a number still being written
            byte[] prefix = DeliveryCodec.indexPrefix(DeliveryState.PENDING, destination);
            List<PendingRef> out = new ArrayList<>();
            try (RocksIterator it = f.db().newIterator(f.byDestination())) {
                long from = afterSeq == Long.MAX_VALUE ? afterSeq : afterSeq + 1;
                for (it.seek(DeliveryCodec.indexKey(DeliveryState.PENDING, destination, from));
                        it.isValid() && out.size() < limit; it.next()) {
                    byte[] k = it.key();
                    if (!DeliveryCodec.startsWith(k, prefix) || k.length != prefix.length + 8
                            || DeliveryCodec.indexKeySeq(k) > visible) {
                        break;
                    }
                    out.add(new PendingRef(DeliveryCodec.indexKeySeq(k), Codec.uuid(ByteBuffer.wrap(it.value())).toString()));
                }
                it.status();
            }
            return out;
        });
    }

    /**
     * Rows to {@code destination} of hooks committed in {@code [fromMillis, toMillis)} (by
     * their id's time), after hook id {@code afterId} (from {@code fromMillis} when null),
     * examining at most {@code maxHooks} hooks.
     */
    DeliveryScan.Page scan(String destination, long fromMillis, long toMillis, String afterId,
                            int maxHooks) {
        PendingHook.checkDestination(destination);
        if (maxHooks < 1) {
            throw new IllegalArgumentException("maxHooks must be at least 1, got " + maxHooks);
        }
        if (fromMillis < 0 || toMillis < fromMillis) {
            throw new IllegalArgumentException("the range must satisfy 0 <= from <= to, got " + fromMillis + " to " + toMillis);
        }
        byte[] after = afterId == null ? null : Codec.uuid(UUID.fromString(afterId));
        return state.store.read((f, unused) -> {
            long visible = state.store.durableUpTo(); // before the iterator: see GroupCommit
            RocksDB db = f.db();
                                    List<DeliveryRow> out = new ArrayList<>();
            int examined = 0;
            String last = null;
            try (RocksIterator it = db.newIterator(f.hookIds())) {
                byte[] floor = Codec.uuid(new UUID(fromMillis << 16, 0L));
                if (after != null && Arrays.compareUnsigned(after, floor) >= 0) {
                    it.seek(after);
                    if (it.isValid() && Arrays.equals(it.key(), after)) {
                        it.next();
                    }
                } else {
                    it.seek(floor);
                }
                for (; it.isValid(); it.next()) {
                    UUID id = Codec.uuid(ByteBuffer.wrap(it.key()));
                    long seq = Codec.u64(it.value());
                    if (UuidV7.millisOf(id) >= toMillis || seq > visible) {
                        // past the range, or past what is durable without a gap: the walk ends here, as at
                        // the end of the family (a later hook with a lower number may still be being written)
                        return new DeliveryScan.Page(out, null);
                    }
                    if (examined == maxHooks) {
                        return new DeliveryScan.Page(out, last);
                    }
                    examined++;
                    last = id.toString();
                    byte[] row = db.get(f.deliveries(), DeliveryCodec.rowKey(seq, destination));
                    if (row != null) {
                        out.add(DeliveryCodec.row(destination, row));
                    }
                }
                it.status();
            }
            return new DeliveryScan.Page(out, null);
        });
    }
}

package org.sluice.edge.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;

/**
 * The durable state of every delivery: one row per (hook, destination), in the
 * {@link HookStore}'s database. Obtained from {@link HookStore#deliveries()}.
 *
 * <h2>States and indexes</h2>
 * <pre>
 *             commit (fsynced, with the hook)          redeliver (fsynced)
 *                        │                          ┌─────────────────────┐
 *                        ▼                          ▼                     │
 *   recordAttempt ──▶ PENDING ──markDelivered──▶ DELIVERED               │
 *   (attempts+1,        │                                                 │
 *    new due time)      └────markDead(reason)──▶ DEAD ────────────────────┘
 * </pre>
 * Invariants, kept by writing a row and its index entries in ONE write batch:
 * <ul>
 *   <li>a PENDING row has exactly one {@code delivery_due} entry, at its
 *       {@code next_attempt_at}, and one PENDING {@code delivery_by_destination} entry;</li>
 *   <li>a DEAD row has one DEAD {@code delivery_by_destination} entry and no due entry;</li>
 *   <li>a DELIVERED row has no index entry;</li>
 *   <li>every row's hook is in {@code hooks} (retention deletes a hook with its rows).</li>
 * </ul>
 *
 * <h2>Durability</h2>
 * Pending rows are written by {@link HookStore#commit} in the fsynced batch that accepts
 * the hook, so a 202 means they survive any crash. Attempts, delivered and dead marks are
 * written without fsync (a lost mark only re-sends the attempt after a crash: at least
 * once); a redelivery and a pause change are fsynced (operator actions that are answered).
 * RocksDB recovers its write-ahead log as a prefix, so every mark written before the last
 * fsynced write (any later commit) survives even a power loss; a SIGKILL loses no
 * completed write at all.
 *
 * <h2>Versions of a row</h2>
 * Each transition names the row it was decided on ({@link DeliveryRow} as read from
 * {@link #due}): it applies only while the stored row is still PENDING with the same
 * {@code attempts} and {@code scheduled_at}, else it changes nothing and returns false.
 * So an attempt that started before an operator's redelivery cannot mark the fresh
 * delivery, and a row handled twice is counted once.
 *
 * <h2>Threads and locks</h2>
 * Reads ({@link #due}, {@link #deliveries}, {@link #deadLetters}, {@link #counts}) take only
 * the store's lifecycle read lock. Transitions, redelivery and retention take the
 * lifecycle read lock and then {@code lock}, which serialises the read-modify-write of
 * rows; neither is the commit lock, so delivery work never blocks ingest. A commit writes
 * only rows of new sequence numbers, which no transition can be looking at. The work under
 * {@code lock} is a few point reads per row and one unsynced write ({@link #apply}: its
 * transitions; a retention pass: at most its {@code maxHooks} hooks' rows), never network
 * I/O. Due scans seek from a per-destination floor kept in memory ({@code ScanFloor}),
 * lowered after every write of a due entry. Counters are atomics updated after
 * each successful write, rebuilt from {@code delivery_by_destination} at open and after a
 * reopen (a scan of the pending and dead entries, proportional to their number).
 *
 * <p>Thread-safe.
 */
public final class DeliveryLedger {

    static final String CF_DELIVERIES = "deliveries";
    static final String CF_DUE = "delivery_due";
    static final String CF_BY_DESTINATION = "delivery_by_destination";
    static final String CF_DESTINATIONS = "destinations";

    private static final byte[] EMPTY = new byte[0];

    private final HookStore store;
    /** Serialises transitions, redeliveries and retention (read-modify-write of rows). */
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Counter> counts = new ConcurrentHashMap<>();
    /** The hook id (16 bytes) the next retention pass starts after; null: from the oldest. Guarded by lock. */
    private byte[] retentionCursor;

    private static final class Counter {
        final AtomicLong pending = new AtomicLong();
        final AtomicLong dead = new AtomicLong();
    }

    /**
     * Counts the writes that change stored rows behind the dispatcher's back (a redelivery, a
     * retention pass, a reopen), each bumped after its write and under {@code lock}. A row
     * read while it had one value is still exactly as read as long as it has that value (see
     * {@link Transition#seenAt}).
     */
    private final AtomicLong othersWrites = new AtomicLong();

    /** Hook id -> sequence number of the hooks the dispatcher is likely to name (see {@link SeqCache}). */
    private final SeqCache seqCache = new SeqCache();

    /** Serialises {@link #setPaused} calls and the first read of the paused set. */
    private final Object pausedLock = new Object();
    /** The paused destinations as stored; null until read (again after a reopen). */
    private volatile Set<String> pausedCache;

    /** Per destination, where a due scan starts: a due time (see {@link ScanFloor}). */
    private final Map<String, ScanFloor> floors = new ConcurrentHashMap<>();

    /**
     * Per destination, where the seek for its oldest pending hook starts: a commit sequence
     * number in the pending index ({@link #counts}; see {@link ScanFloor}). Every delivered or
     * dead row leaves a tombstone at the front of that index, so a seek from the start of the
     * destination's range stepped over every delivery finished since the last compaction, on
     * every look at the counts (the admin API, the console, each metrics scrape): during a
     * replay of 700,000 hooks, the admin's two looks a second took a sixth of the server's CPU.
     */
    private final Map<String, ScanFloor> pendingFloors = new ConcurrentHashMap<>();

    /**
     * A key below which an index range of one destination has no live entry: a due time in
     * {@code delivery_due}, or a sequence number in the pending part of
     * {@code delivery_by_destination}. A deleted entry stays in RocksDB as a tombstone until
     * compaction, and a seek steps over every tombstone between its target and the first live
     * key: from the start of the destination's range that is every delivery handled since the
     * last compaction (hundreds of thousands under load, the dispatcher's main cost before the
     * due floor). Seeking from the floor steps only over entries deleted since the previous scan.
     *
     * <p>Writers {@link #lower} it after writing an entry. A scan {@link #open}s a window,
     * seeks from the floor, and {@link #raise}s it to the first live entry it saw, capped
     * by every entry lowered in during its window (whose write its iterator may have
     * missed); a window that another scan has replaced raises nothing. A writer that
     * lowers before the scan's window opened wrote before the scan's iterator was made,
     * so the scan saw its entry. The floor therefore never passes a live entry.
     */
    private static final class ScanFloor {
        private long at;
        private long window;
        private long lowestInWindow = Long.MAX_VALUE;

        synchronized long at() {
            return at;
        }

        /** Opens a scan's window; returns {floor, window}. */
        synchronized long[] open() {
            lowestInWindow = Long.MAX_VALUE;
            return new long[] {at, ++window};
        }

        /** An entry at {@code key} was written (keys below 0 are stored as 0). */
        synchronized void lower(long key) {
            long k = Math.max(0, key); // as the keys store it
            at = Math.min(at, k);
            lowestInWindow = Math.min(lowestInWindow, k);
        }

        /** The scan of {@code scanWindow} saw no live entry below {@code firstLive} (MAX_VALUE: none at all). */
        synchronized void raise(long scanWindow, long firstLive) {
            if (scanWindow == window) {
                at = Math.max(at, Math.min(firstLive, lowestInWindow));
            }
        }
    }

    private ScanFloor floor(String destination) {
        return floors.computeIfAbsent(destination, k -> new ScanFloor());
    }

    private ScanFloor pendingFloor(String destination) {
        return pendingFloors.computeIfAbsent(destination, k -> new ScanFloor());
    }

    DeliveryLedger(HookStore store) {
        this.store = store;
    }

    // ================================================================ scheduling (called by HookStore.commit)

    /**
     * Adds a new hook's pending rows to the commit's batch, and keeps the hook in memory for
     * the dispatcher's read if a row is left unclaimed and it fits ({@link SeqCache}); the
     * caller holds the commit lock.
     * A row that {@code claims} claims is written due at the claim's expiry and added to
     * {@code claimed}; the others are due at {@code nowMillis}. Each row is added to
     * {@code scheduled} with its due time, for {@link #scheduled} after the write.
     */
    void schedule(WriteBatch wb, long seq, UUID id, PendingHook hook, long nowMillis, CommitClaims claims,
                  List<CommitClaims.Claimed> claimed, List<NewRow> scheduled) throws RocksDBException {
        List<String> destinations = hook.destinations();
        if (destinations.isEmpty()) {
            return;
        }
        ColumnFamilyHandle rows = store.family(CF_DELIVERIES);
        ColumnFamilyHandle due = store.family(CF_DUE);
        ColumnFamilyHandle byDest = store.family(CF_BY_DESTINATION);
        byte[] idBytes = Codec.uuid(id);
        long writes = othersWrites.get(); // the rows are new: nothing else can have written them yet
        StoredHook stored = new StoredHook(id.toString(), hook.tenant(), hook.source(), hook.dedupeKey(),
                hook.receivedAtMillis(), hook.headers(), hook.body());
        int unclaimed = 0;
        for (String d : destinations) {
            long until = claims == null ? -1 : claims.claim(d, nowMillis);
            DeliveryRow row = new DeliveryRow(stored.id(), d, DeliveryState.PENDING, 0, until >= 0 ? until : nowMillis,
                    nowMillis, nowMillis, null, null, null, null, null);
            wb.put(rows, DeliveryCodec.rowKey(seq, d), DeliveryCodec.row(id, row));
            wb.put(due, DeliveryCodec.dueKey(d, row.nextAttemptAtMillis(), seq), EMPTY);
            wb.put(byDest, DeliveryCodec.indexKey(DeliveryState.PENDING, d, seq), idBytes);
            scheduled.add(new NewRow(d, row.nextAttemptAtMillis(), seq));
            if (until >= 0) {
                claimed.add(new CommitClaims.Claimed(stored, row, seq, writes));
            } else {
                unclaimed++;
            }
        }
        if (unclaimed > 0) {
            seqCache.put(id, seq, stored, unclaimed); // the dispatcher reads it later, once per such row: keep it for those reads
        } else {
            seqCache.remember(id, seq); // every row went out with its claim, hook and all
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
            counter(r.destination()).pending.incrementAndGet();
            floor(r.destination()).lower(r.dueMillis());
            pendingFloor(r.destination()).lower(r.seq());
        }
    }

    /** The destination's scan floor (no live due entry lies below it); for tests. */
    long floorMillis(String destination) {
        return floor(destination).at();
    }

    /** The destination's pending floor (no live pending index entry lies below this sequence number); for tests. */
    long pendingFloorSeq(String destination) {
        return pendingFloor(destination).at();
    }

    /** The sequence number {@code id} was committed under if the cache knows it, else -1 (see {@link SeqCache}). */
    long cachedSeq(UUID id) {
        return seqCache.get(id);
    }

    /**
     * The hook committed as {@code id} under {@code seq} (-1: the number the cache remembers
     * for the id, if any) if the cache keeps it, else null; counts as one of the reads it was
     * kept for ({@link SeqCache#take}).
     */
    StoredHook cachedHook(UUID id, long seq) {
        return seqCache.take(id, seq);
    }

    /** Bytes of the hooks the cache keeps for the dispatcher now (bounded, see {@link SeqCache}). */
    public long cachedHookBytes() {
        return seqCache.hookBytes();
    }

    /** Recounts pending and dead rows per destination; at open and after a reopen (no concurrent writer). */
    void rebuildCounts(RocksDB db, ColumnFamilyHandle byDest) {
        othersWrites.incrementAndGet(); // a reopened database: rows read before it are read again
        pausedCache = null;
        counts.clear();
        floors.clear();
        pendingFloors.clear();
        try (RocksIterator it = db.newIterator(byDest)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                Counter c = counter(DeliveryCodec.indexKeyDestination(k));
                (DeliveryCodec.indexKeyState(k) == DeliveryState.PENDING ? c.pending : c.dead).incrementAndGet();
            }
        }
    }

    private static DeliveryRow fresh(UUID id, String destination, long now) {
        return new DeliveryRow(id.toString(), destination, DeliveryState.PENDING, 0, now, now, now,
                null, null, null, null, null);
    }

    // ================================================================ reading

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}, earliest due first (then commit order): {@link #dueBy}'s rows.
     */
    public List<DeliveryRow> due(String destination, long nowMillis, int limit) {
        return dueBy(destination, nowMillis, limit).rows();
    }

    /**
     * What {@link #dueBy} reads.
     *
     * @param rows          pending rows due by the scan's time, earliest due first
     * @param seqs          the commit sequence number of each row (same order), which names
     *                      the row to {@link #dueBy}'s {@code held} test
     * @param nextDueMillis when more rows were due than the limit, the due time (epoch ms,
     *                      at or before the scan's time) of the first one not returned; else -1
     * @param writes        {@link #othersWrites()} before the rows were read (see {@link Transition#seenAt})
     */
    public record Due(List<DeliveryRow> rows, long[] seqs, long nextDueMillis, long writes) {
        public Due {
            rows = List.copyOf(rows);
            if (seqs.length != rows.size()) {
                throw new IllegalArgumentException(seqs.length + " sequence numbers for " + rows.size() + " rows");
            }
        }
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}; {@link #dueBy(String, long, int, LongPredicate)} with nothing held.
     */
    public Due dueBy(String destination, long nowMillis, int limit) {
        return dueBy(destination, nowMillis, limit, seq -> false);
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}, skipping the rows whose sequence number {@code held} names; the
     * dispatcher's scan, {@code held} being the rows whose attempt is out. A held row's
     * entry is stepped over without reading the row or counting it towards the limit.
     *
     * <p>It seeks from the destination's due floor (see {@code ScanFloor}), past the
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
    public Due dueBy(String destination, long nowMillis, int limit, LongPredicate held) {
        checkLimit(limit);
        PendingHook.checkDestination(destination);
        ScanFloor floor = floor(destination);
        long writes = othersWrites.get(); // before any row is read
        return store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            ColumnFamilyHandle rows = store.family(CF_DELIVERIES);
            byte[] prefix = DeliveryCodec.destinationPrefix(destination);
            List<Long> seqs = new ArrayList<>();
            long next = -1;
            long[] window = floor.open();
            long firstLive;
            long durable = store.durableUpTo(); // a row of a commit still being fsynced is not sent yet
            long bound = nowMillis == Long.MAX_VALUE ? nowMillis : nowMillis + 1;
            firstLive = bound; // nothing live below the bound but what the scan reads
            try (Slice upper = new Slice(DeliveryCodec.dueKey(destination, bound, 0));
                 ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                 RocksIterator it = db.newIterator(store.family(CF_DUE), options)) {
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

    /**
     * A row that a scan's {@code held} test named (see {@link #dueBy(String, long, int,
     * LongPredicate)}) is let go unchanged, still due at {@code nextAttemptAtMillis}: the
     * destination's scans look for it again. Costs no read or write.
     */
    public void unheld(String destination, long nextAttemptAtMillis) {
        floor(destination).lower(nextAttemptAtMillis);
    }

    /**
     * How many writes have changed stored rows other than through {@link #apply} (a
     * redelivery, a retention pass, a reopen of the store). Read it before reading a row;
     * while it has not moved, the row is as read unless {@link #apply} changed it.
     */
    public long othersWrites() {
        return othersWrites.get();
    }

    /** Every delivery row of the hook, by destination name; empty when the hook is unknown or has none. */
    public List<DeliveryRow> deliveries(String hookId) {
        UUID uuid = parseId(hookId);
        if (uuid == null) {
            return List.of();
        }
        return store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            Long seq = seqOf(db, uuid);
            return seq == null ? List.<DeliveryRow>of() : rowsOf(db, seq);
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
    public DeadLetterPage deadLetters(String destination, String afterId, int limit) {
        checkLimit(limit);
        if (destination != null) {
            PendingHook.checkDestination(destination);
        }
        return store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            long fromSeq = 0;
            if (afterId != null) {
                UUID uuid = parseId(afterId);
                Long seq = uuid == null ? null : seqOf(db, uuid);
                if (seq == null) {
                    throw new IllegalArgumentException("after: no stored hook has id " + afterId);
                }
                fromSeq = seq;
            }
            Collection<String> names = destination != null ? List.of(destination) : new TreeSet<>(counts.keySet());
            // per destination, up to limit + 1 entries after fromSeq; merged in (seq, destination) order
            record Entry(long seq, String destination) {
            }
            List<Entry> entries = new ArrayList<>();
            ColumnFamilyHandle byDest = store.family(CF_BY_DESTINATION);
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
            ColumnFamilyHandle rows = store.family(CF_DELIVERIES);
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
     * previous look, see {@link #pendingFloors}).
     */
    public DestinationCounts counts(String destination, long nowMillis) {
        PendingHook.checkDestination(destination);
        Counter c = counts.get(destination);
        if (c == null) {
            return new DestinationCounts(0, 0, 0);
        }
        long pending = c.pending.get();
        long dead = c.dead.get();
        ScanFloor floor = pendingFloor(destination);
        long oldest = store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            byte[] prefix = DeliveryCodec.indexPrefix(DeliveryState.PENDING, destination);
            long[] window = floor.open();
            try (RocksIterator it = db.newIterator(store.family(CF_BY_DESTINATION))) {
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
        return new DestinationCounts(pending, dead, oldest);
    }

    /** A pending delivery as the pending index lists it: the hook's commit sequence number and id. */
    public record PendingRef(long seq, String hookId) {
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} in hook commit order,
     * after the hook of sequence number {@code afterSeq} (0: from the first). Reads only the
     * pending index (no row, no hook); a {@code fifo} dispatcher follows new commits with it.
     * Stops at the store's durable-up-to number, as pagers do (see {@link HookStore}).
     */
    public List<PendingRef> pendingInOrder(String destination, long afterSeq, int limit) {
        checkLimit(limit);
        PendingHook.checkDestination(destination);
        return store.underReadLock((rocks, unused) -> {
            long visible = store.durableUpTo(); // before the iterator: a follower's cursor must not pass a number still being written
            byte[] prefix = DeliveryCodec.indexPrefix(DeliveryState.PENDING, destination);
            List<PendingRef> out = new ArrayList<>();
            try (RocksIterator it = rocks.db().newIterator(store.family(CF_BY_DESTINATION))) {
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

    /** Names of the destinations that have pending or dead rows (or had them since open). */
    public Set<String> destinations() {
        return Set.copyOf(counts.keySet());
    }

    // ================================================================ transitions (the dispatcher)

    /**
     * Moves a pending delivery's due time to {@code untilMillis} without counting an attempt:
     * the dispatcher claims a row before sending, so that an attempt lost in a crash (or in
     * a stuck send) comes due again on its own. Not fsynced.
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    public boolean claim(DeliveryRow seen, long untilMillis) {
        return apply(List.of(Transition.claim(seen, untilMillis)))[0];
    }

    /**
     * Records a failed attempt that will be retried: attempts + 1, its answer, and the next
     * due time. Not fsynced: lost in a crash, the attempt is simply made again.
     *
     * @param status the HTTP status answered, or null when there was no answer
     * @param error  what went wrong without an answer (for example {@code timeout}), or null
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    public boolean recordAttempt(DeliveryRow seen, Integer status, String error, long nextAttemptAtMillis, long nowMillis) {
        return apply(List.of(Transition.attempt(seen, status, error, nextAttemptAtMillis, nowMillis)))[0];
    }

    /**
     * Marks the delivery delivered by an attempt answered {@code status} (null: a broker's
     * acknowledgement, which has no status). Not fsynced: lost in a crash, the hook is sent
     * once more (same {@code webhook-id}).
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    public boolean markDelivered(DeliveryRow seen, Integer status, long nowMillis) {
        return apply(List.of(Transition.delivered(seen, status, nowMillis)))[0];
    }

    /**
     * Gives up on the delivery: dead with {@code reason} ({@code permanent_status},
     * {@code permanent_error}, {@code max_attempts} or {@code max_age}, as {@code DeadReason.code()}). When
     * {@code attempted}, the attempt that decided it is counted with its status or error;
     * a delivery found expired when it came due is marked dead without one. Not fsynced.
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    public boolean markDead(DeliveryRow seen, String reason, boolean attempted, Integer status, String error, long nowMillis) {
        return apply(List.of(Transition.dead(seen, reason, attempted, status, error, nowMillis)))[0];
    }

    private interface Change {
        DeliveryRow apply(DeliveryRow current);
    }

    /**
     * One transition of a row as {@link #claim}, {@link #recordAttempt}, {@link #markDelivered}
     * and {@link #markDead} make it, to be applied with others in one write by {@link #apply}.
     */
    public static final class Transition {
        private final DeliveryRow seen;
        private final Change change;
        private final long seq;
        private final long writes;

        private Transition(DeliveryRow seen, Change change) {
            this(seen, change, -1, -1);
        }

        private Transition(DeliveryRow seen, Change change, long seq, long writes) {
            this.seen = Objects.requireNonNull(seen, "seen");
            this.change = change;
            this.seq = seq;
            this.writes = writes;
        }

        /**
         * The same transition, for a row whose stored value was exactly {@code seen} when
         * {@link DeliveryLedger#othersWrites()} read {@code writes} (a row returned by
         * {@link DeliveryLedger#dueBy} with its {@link Due#writes()}, or written by a commit),
         * under hook sequence number {@code seq}. {@link DeliveryLedger#apply} then takes
         * {@code seen} as the stored row without reading it again, unless another write has
         * changed rows since, or an earlier transition of this row has been applied since the
         * row was read: the caller must not pass a row it has already changed through
         * {@link DeliveryLedger#apply} since it read it.
         */
        public Transition seenAt(long seq, long writes) {
            if (seq < 0 || writes < 0) {
                throw new IllegalArgumentException("seq and writes must be at least 0, got " + seq + " and " + writes);
            }
            return new Transition(seen, change, seq, writes);
        }

        /** As {@link DeliveryLedger#claim}. */
        public static Transition claim(DeliveryRow seen, long untilMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.PENDING,
                    cur.attempts(), untilMillis, cur.scheduledAtMillis(), cur.updatedAtMillis(), cur.lastStatus(),
                    cur.lastError(), null, null, null));
        }

        /** As {@link DeliveryLedger#recordAttempt}. */
        public static Transition attempt(DeliveryRow seen, Integer status, String error, long nextAttemptAtMillis, long nowMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.PENDING,
                    cur.attempts() + 1, nextAttemptAtMillis, cur.scheduledAtMillis(), nowMillis, status, error,
                    null, null, null));
        }

        /** As {@link DeliveryLedger#markDelivered}. */
        public static Transition delivered(DeliveryRow seen, Integer status, long nowMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.DELIVERED,
                    cur.attempts() + 1, cur.nextAttemptAtMillis(), cur.scheduledAtMillis(), nowMillis, status, null,
                    nowMillis, null, null));
        }

        /** As {@link DeliveryLedger#markDead}; fails on an unknown reason. */
        public static Transition dead(DeliveryRow seen, String reason, boolean attempted, Integer status, String error,
                                      long nowMillis) {
            DeliveryCodec.deadReasonByte(reason); // fails on an unknown reason before anything is written
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.DEAD,
                    cur.attempts() + (attempted ? 1 : 0), cur.nextAttemptAtMillis(), cur.scheduledAtMillis(), nowMillis,
                    attempted ? status : cur.lastStatus(), attempted ? error : cur.lastError(), null, reason, nowMillis));
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
    public boolean[] apply(List<Transition> transitions) {
        boolean[] applied = new boolean[transitions.size()];
        if (transitions.isEmpty()) {
            return applied;
        }
        return store.ledgerWrite(false, (rocks, writeOptions) -> {
            RocksDB db = rocks.db();
            lock.lock();
            try {
                record RowName(String hookId, String destination) {
                }
                Map<String, Long> seqs = new HashMap<>();
                Map<RowName, DeliveryRow> latest = new HashMap<>(); // the row as this call leaves it
                List<DeliveryRow> moved = new ArrayList<>(); // (cur, next) pairs
                try (WriteBatch wb = new WriteBatch()) {
                    for (int i = 0; i < applied.length; i++) {
                        DeliveryRow seen = transitions.get(i).seen;
                        UUID uuid = parseId(seen.hookId());
                        if (uuid == null) {
                            continue;
                        }
                        Transition t = transitions.get(i);
                        boolean exact = t.writes >= 0 && t.writes == othersWrites.get(); // under lock: no other write runs
                        // a hook's number never changes: the transition's holds even when the row must be read again
                        Long seq = t.seq >= 0 ? Long.valueOf(t.seq) : seqs.get(seen.hookId());
                        if (seq == null) {
                            seq = rowsSeqOf(db, uuid);
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
                            byte[] v = db.get(store.family(CF_DELIVERIES), DeliveryCodec.rowKey(seq, d));
                            if (v == null) {
                                continue;
                            }
                            cur = DeliveryCodec.row(d, v);
                        }
                        if (cur.state() != DeliveryState.PENDING || cur.attempts() != seen.attempts()
                                || cur.scheduledAtMillis() != seen.scheduledAtMillis()) {
                            continue;
                        }
                        DeliveryRow next = transitions.get(i).change.apply(cur);
                        replace(wb, uuid, seq, cur, next);
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
                    counted(moved.get(i), next);
                    if (next.state() == DeliveryState.PENDING) {
                        // (its pending index entry is the one it had: a transition starts from PENDING)
                        floor(next.destination()).lower(next.nextAttemptAtMillis());
                    }
                }
                return applied;
            } finally {
                lock.unlock();
            }
        });
    }

    /** Puts {@code next} in place of {@code cur} (null: no row yet), with its index entries. */
    private void replace(WriteBatch wb, UUID id, long seq, DeliveryRow cur, DeliveryRow next) throws RocksDBException {
        String d = next.destination();
        ColumnFamilyHandle due = store.family(CF_DUE);
        ColumnFamilyHandle byDest = store.family(CF_BY_DESTINATION);
        if (cur != null && cur.state() == DeliveryState.PENDING) {
            wb.delete(due, DeliveryCodec.dueKey(d, cur.nextAttemptAtMillis(), seq));
        }
        if (cur != null && cur.state() != next.state() && cur.state() != DeliveryState.DELIVERED) {
            wb.delete(byDest, DeliveryCodec.indexKey(cur.state(), d, seq));
        }
        if (next.state() == DeliveryState.PENDING) {
            wb.put(due, DeliveryCodec.dueKey(d, next.nextAttemptAtMillis(), seq), EMPTY);
        }
        if (next.state() != DeliveryState.DELIVERED && (cur == null || cur.state() != next.state())) {
            wb.put(byDest, DeliveryCodec.indexKey(next.state(), d, seq), Codec.uuid(id));
        }
        wb.put(store.family(CF_DELIVERIES), DeliveryCodec.rowKey(seq, d), DeliveryCodec.row(id, next));
    }

    /** Moves the counters from {@code cur}'s state (null: none) to {@code next}'s (null: deleted). */
    private void counted(DeliveryRow cur, DeliveryRow next) {
        String d = (next != null ? next : cur).destination();
        Counter c = counter(d);
        if (cur != null) {
            if (cur.state() == DeliveryState.PENDING) {
                c.pending.decrementAndGet();
            } else if (cur.state() == DeliveryState.DEAD) {
                c.dead.decrementAndGet();
            }
        }
        if (next != null) {
            if (next.state() == DeliveryState.PENDING) {
                c.pending.incrementAndGet();
            } else if (next.state() == DeliveryState.DEAD) {
                c.dead.incrementAndGet();
            }
        }
    }

    // ================================================================ operator actions

    /**
     * Schedules a fresh delivery of the hook to each of {@code destinations} (every
     * destination it has a row for when null): pending, attempts from 1, due at
     * {@code nowMillis}, whatever the row's state was (a pending row starts over).
     * Fsynced: when this returns, the redelivery survives a crash.
     *
     * @return the new rows, or empty when no stored hook has this id
     */
    public Optional<List<DeliveryRow>> redeliver(String hookId, Collection<String> destinations, long nowMillis) {
        UUID uuid = parseId(hookId);
        if (uuid == null) {
            return Optional.empty();
        }
        List<String> named = destinations == null ? null : PendingHook.checkDestinations(List.copyOf(destinations));
        return store.ledgerWrite(true, (rocks, writeOptions) -> {
            RocksDB db = rocks.db();
            lock.lock();
            try {
                Long seq = seqOf(db, uuid);
                if (seq == null) {
                    return Optional.<List<DeliveryRow>>empty();
                }
                Map<String, DeliveryRow> existing = new LinkedHashMap<>();
                for (DeliveryRow r : rowsOf(db, seq)) {
                    existing.put(r.destination(), r);
                }
                List<String> targets = named != null ? named : List.copyOf(existing.keySet());
                List<DeliveryRow> fresh = new ArrayList<>(targets.size());
                try (WriteBatch wb = new WriteBatch()) {
                    for (String d : targets) {
                        DeliveryRow next = fresh(uuid, d, nowMillis);
                        replace(wb, uuid, seq, existing.get(d), next);
                        fresh.add(next);
                    }
                    if (wb.count() > 0) {
                        try {
                            db.write(writeOptions, wb);
                        } finally {
                            othersWrites.incrementAndGet(); // after the write (a row read before it is not exact)
                        }
                    }
                }
                for (DeliveryRow next : fresh) {
                    counted(existing.get(next.destination()), next);
                    floor(next.destination()).lower(next.nextAttemptAtMillis());
                    pendingFloor(next.destination()).lower(seq);
                }
                return Optional.of(List.copyOf(fresh));
            } finally {
                lock.unlock();
            }
        });
    }

    /** Pauses or resumes a destination; fsynced, so the state survives a restart. */
    public void setPaused(String destination, boolean paused, long nowMillis) {
        PendingHook.checkDestination(destination);
        synchronized (pausedLock) {
            Set<String> before = pausedDestinations();
            store.ledgerWrite(true, (rocks, writeOptions) -> {
                RocksDB db = rocks.db();
                db.put(store.family(CF_DESTINATIONS), writeOptions, Codec.utf8(destination),
                        DeliveryCodec.destination(paused, nowMillis));
                return null;
            });
            Set<String> after = new TreeSet<>(before);
            if (paused) {
                after.add(destination);
            } else {
                after.remove(destination);
            }
            pausedCache = pausedSet(after);
        }
    }

    /**
     * An unmodifiable copy of {@code names} of one class whatever its size. {@code Set.copyOf}
     * returns a different class for none, one or two, and more names, and the commit path and
     * the dispatcher's passes call {@code contains} on this set: a pause that changed its class
     * sent their compiled code back to the lower tiers (C2's {@code class_check} trap in
     * {@link #mayBePaused}; docs/bench-notes/brokers-2026-12-05-to-06.md, "Which traps").
     */
    static Set<String> pausedSet(Collection<String> names) {
        return Collections.unmodifiableSet(new HashSet<>(names));
    }

    /**
     * The destinations stored as paused. Read from the store once, then kept in memory and
     * changed by {@link #setPaused} after its write (the dispatcher asks every pass).
     */
    public Set<String> pausedDestinations() {
        Set<String> cached = pausedCache;
        if (cached != null) {
            return cached;
        }
        synchronized (pausedLock) {
            if (pausedCache == null) {
                pausedCache = readPaused();
            }
            return pausedCache;
        }
    }

    /**
     * Whether {@code destination} may be paused, from memory only (no read, no lock): true
     * when paused, and also when the paused set has not been read since the store opened.
     */
    public boolean mayBePaused(String destination) {
        Set<String> cached = pausedCache;
        return cached == null || cached.contains(destination);
    }

    private Set<String> readPaused() {
        return store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            Set<String> paused = new TreeSet<>();
            try (RocksIterator it = db.newIterator(store.family(CF_DESTINATIONS))) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    if (DeliveryCodec.destinationPaused(it.value())) {
                        paused.add(new String(it.key(), java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
                it.status();
            }
            return pausedSet(paused);
        });
    }

    // ================================================================ retention

    /**
     * One bounded retention pass over at most {@code maxHooks} hooks, oldest first,
     * continuing where the previous pass stopped. A hook's age is its commit time (from its
     * UUIDv7 id). For each hook:
     * <ul>
     *   <li>a DEAD row dead for at least {@code deadMaxAgeMillis} is deleted;</li>
     *   <li>the hook (record, id entry and DELIVERED rows) is deleted once it is at least
     *       {@code hooksMaxAgeMillis} old and it has no PENDING row and no DEAD row left;
     *       a hook with a pending delivery is never deleted, and a dead letter keeps its
     *       hook (so that it can be redelivered) until the dead letter itself expires.</li>
     * </ul>
     * The newest hook is never deleted (the commit sequence resumes after it at open). The
     * pass stops early at the first hook too young for either rule, or numbered above the
     * store's durable-up-to number (a commit below it is still writing); the next pass then
     * starts from the oldest again. Not fsynced: a pass lost in a crash is redone.
     */
    public RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks) {
        checkLimit(maxHooks);
        if (hooksMaxAgeMillis < 0 || deadMaxAgeMillis < 0) {
            throw new IllegalArgumentException("retention ages must be at least 0, got " + hooksMaxAgeMillis + " and " + deadMaxAgeMillis);
        }
        long hooksCutoff = nowMillis - hooksMaxAgeMillis;
        long deadCutoff = nowMillis - deadMaxAgeMillis;
        long youngest = Math.max(hooksCutoff, deadCutoff); // a hook committed after this has nothing to delete
        return store.ledgerWrite(false, (rocks, writeOptions) -> {
            RocksDB db = rocks.db();
            lock.lock();
            try {
                ColumnFamilyHandle hooks = store.family(HookStore.CF_HOOKS);
                ColumnFamilyHandle hookIds = store.family(HookStore.CF_HOOK_IDS);
                ColumnFamilyHandle rows = store.family(CF_DELIVERIES);
                ColumnFamilyHandle byDest = store.family(CF_BY_DESTINATION);
                long visible = store.durableUpTo(); // before the iterators: see HookStore's class comment
                long lastSeq;
                try (RocksIterator it = db.newIterator(hooks)) {
                    it.seekToLast();
                    lastSeq = it.isValid() ? Codec.u64(it.key()) : -1;
                }
                int examined = 0;
                int hooksDeleted = 0;
                int deadDeleted = 0;
                boolean more = false;
                byte[] last = null;
                List<DeliveryRow> deadGone = new ArrayList<>();
                try (WriteBatch wb = new WriteBatch(); RocksIterator it = db.newIterator(hookIds)) {
                    if (retentionCursor == null) {
                        it.seekToFirst();
                    } else {
                        it.seek(retentionCursor);
                        if (it.isValid() && java.util.Arrays.equals(it.key(), retentionCursor)) {
                            it.next();
                        }
                    }
                    for (; it.isValid(); it.next()) {
                        if (examined == maxHooks) {
                            more = true;
                            break;
                        }
                        byte[] idBytes = it.key();
                        UUID id = Codec.uuid(ByteBuffer.wrap(idBytes));
                        long committed = UuidV7.millisOf(id);
                        long seq = Codec.u64(it.value());
                        if (committed > youngest || seq > visible) {
                            // too young, or a lower number may still be in a write: the cursor must not pass it
                            break;
                        }
                        examined++;
                        last = idBytes;
                        boolean keep = false;
                        List<byte[]> delivered = new ArrayList<>();
                        for (DeliveryRow r : rowsOf(db, seq)) {
                            byte[] rowKey = DeliveryCodec.rowKey(seq, r.destination());
                            switch (r.state()) {
                                case PENDING -> keep = true;
                                case DELIVERED -> delivered.add(rowKey);
                                case DEAD -> {
                                    if (r.deadAtMillis() != null && r.deadAtMillis() <= deadCutoff) {
                                        wb.delete(rows, rowKey);
                                        wb.delete(byDest, DeliveryCodec.indexKey(DeliveryState.DEAD, r.destination(), seq));
                                        deadGone.add(r);
                                        deadDeleted++;
                                    } else {
                                        keep = true;
                                    }
                                }
                            }
                        }
                        if (!keep && committed <= hooksCutoff && seq != lastSeq) {
                            for (byte[] k : delivered) {
                                wb.delete(rows, k);
                            }
                            wb.delete(hooks, Codec.u64(seq));
                            wb.delete(hookIds, idBytes);
                            hooksDeleted++;
                        }
                    }
                    it.status();
                    if (wb.count() > 0) {
                        try {
                            db.write(writeOptions, wb);
                        } finally {
                            othersWrites.incrementAndGet();
                        }
                    }
                }
                for (DeliveryRow r : deadGone) {
                    counted(r, null);
                }
                retentionCursor = more ? last : null;
                return new RetentionResult(examined, hooksDeleted, deadDeleted, more);
            } finally {
                lock.unlock();
            }
        });
    }

    // ================================================================ checks (tests)

    /**
     * Every broken invariant of the class comment, as text (empty when none), and whether
     * the counters match the rows. A full scan: for tests and offline checks only.
     */
    List<String> verify() {
        return store.underReadLock((rocks, unused) -> {
            RocksDB db = rocks.db();
            List<String> problems = new ArrayList<>();
            ColumnFamilyHandle rows = store.family(CF_DELIVERIES);
            ColumnFamilyHandle due = store.family(CF_DUE);
            ColumnFamilyHandle byDest = store.family(CF_BY_DESTINATION);
            ColumnFamilyHandle hooks = store.family(HookStore.CF_HOOKS);
            Map<String, long[]> scanned = new LinkedHashMap<>();
            try (RocksIterator it = db.newIterator(rows)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    long seq = DeliveryCodec.rowKeySeq(it.key());
                    String d = DeliveryCodec.rowKeyDestination(it.key());
                    DeliveryRow r = DeliveryCodec.row(d, it.value());
                    String where = "row " + r.hookId() + "/" + d + " (" + r.state().code() + ")";
                    if (db.get(hooks, Codec.u64(seq)) == null) {
                        problems.add(where + ": its hook is missing");
                    }
                    boolean hasDue = db.get(due, DeliveryCodec.dueKey(d, r.nextAttemptAtMillis(), seq)) != null;
                    boolean hasPending = db.get(byDest, DeliveryCodec.indexKey(DeliveryState.PENDING, d, seq)) != null;
                    boolean hasDead = db.get(byDest, DeliveryCodec.indexKey(DeliveryState.DEAD, d, seq)) != null;
                    boolean pending = r.state() == DeliveryState.PENDING;
                    boolean dead = r.state() == DeliveryState.DEAD;
                    if (hasDue != pending || hasPending != pending || hasDead != dead) {
                        problems.add(where + ": due entry " + hasDue + ", pending entry " + hasPending + ", dead entry " + hasDead);
                    }
                    long[] c = scanned.computeIfAbsent(d, k -> new long[2]);
                    c[0] += pending ? 1 : 0;
                    c[1] += dead ? 1 : 0;
                }
                it.status();
            }
            long dueEntries = 0;
            try (RocksIterator it = db.newIterator(due)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    dueEntries++;
                }
            }
            long pendingRows = scanned.values().stream().mapToLong(c -> c[0]).sum();
            if (dueEntries != pendingRows) {
                problems.add(dueEntries + " due entries for " + pendingRows + " pending rows");
            }
            long indexEntries = 0;
            try (RocksIterator it = db.newIterator(byDest)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    indexEntries++;
                }
            }
            long deadRows = scanned.values().stream().mapToLong(c -> c[1]).sum();
            if (indexEntries != pendingRows + deadRows) {
                problems.add(indexEntries + " destination index entries for " + (pendingRows + deadRows) + " pending and dead rows");
            }
            for (Map.Entry<String, long[]> e : scanned.entrySet()) {
                Counter c = counts.get(e.getKey());
                long p = c == null ? 0 : c.pending.get();
                long dd = c == null ? 0 : c.dead.get();
                if (p != e.getValue()[0] || dd != e.getValue()[1]) {
                    problems.add("counters of " + e.getKey() + " say " + p + " pending, " + dd + " dead; rows say "
                            + e.getValue()[0] + ", " + e.getValue()[1]);
                }
            }
            return problems;
        });
    }

    // ================================================================ helpers

    private Counter counter(String destination) {
        return counts.computeIfAbsent(destination, k -> new Counter());
    }

    /**
     * The sequence number of a hook whose existing rows the caller reads before it changes
     * them ({@link #apply}): a remembered number is enough there, since a deleted hook's rows
     * read as missing. Anything that creates rows or answers "no such hook" uses {@link #seqOf}.
     */
    private Long rowsSeqOf(RocksDB db, UUID id) throws RocksDBException {
        long cached = seqCache.get(id);
        return cached >= 0 ? Long.valueOf(cached) : seqOf(db, id);
    }

    /** The sequence number of a stored hook, from the id index (null: no such hook). */
    private Long seqOf(RocksDB db, UUID id) throws RocksDBException {
        byte[] seq = db.get(store.family(HookStore.CF_HOOK_IDS), Codec.uuid(id));
        return seq == null ? null : Codec.u64(seq);
    }

    private List<DeliveryRow> rowsOf(RocksDB db, long seq) throws RocksDBException {
        List<DeliveryRow> out = new ArrayList<>();
        byte[] prefix = Codec.u64(seq);
        try (RocksIterator it = db.newIterator(store.family(CF_DELIVERIES))) {
            for (it.seek(prefix); it.isValid() && DeliveryCodec.startsWith(it.key(), prefix); it.next()) {
                out.add(DeliveryCodec.row(DeliveryCodec.rowKeyDestination(it.key()), it.value()));
            }
            it.status();
        }
        return out;
    }

    private static void checkLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
    }

    private static UUID parseId(String id) {
        if (id == null || id.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}

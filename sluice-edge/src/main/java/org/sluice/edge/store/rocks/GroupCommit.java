package org.sluice.edge.store.rocks;

import org.sluice.edge.store.UuidV7;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.WorkingSet;

/**
 * The commit path of a {@link RocksHookStore}: numbers, ids, dedupe checks and the group
 * commit of the write-ahead log, and the durable-up-to number every ordered reader stops at.
 *
 * <h2>Commit protocol and ordering</h2>
 * {@link #commit(List)} writes every new hook, its id-index entry, its dedupe entries and
 * its pending delivery rows in ONE {@link WriteBatch}, made durable by an fsync of the
 * write-ahead log before it answers, in three phases:
 * <ol>
 *   <li><b>assign</b>, under {@code commitLock}, with no write: the dedupe checks, the next
 *       commit sequence numbers and UUIDv7 ids (both in the same order), the batch built, and
 *       a {@code Ticket} for the numbers queued in {@code unresolved} (number order);</li>
 *   <li><b>write</b>, outside the lock: {@code db.write} without sync (RocksDB merges the
 *       batches of writers waiting in its write path into one log write), then the log's
 *       fsync ({@code SyncWAL}) in {@code syncLog}, one at a time, each covering every
 *       commit written before it began (group commit). The fsync is kept out of RocksDB's
 *       write path on purpose: a {@code sync=true} write holds that path through its fsync,
 *       so every other write, the delivery ledger's unsynced ones included, waited an fsync
 *       (under ingest load the dispatcher spent most of its time there). Then the ticket is
 *       resolved, durable or failed;</li>
 *   <li><b>wait</b>: the commit returns once every number handed out before it returned
 *       from phase 1 is resolved, so an answered id is always one a pager reads.</li>
 * </ol>
 *
 * <p><b>Visible before durable.</b> A commit's write is visible to readers from the end of
 * its {@code db.write}, before its fsync. So nothing that answers or acts for a hook reads
 * past what is known durable: cursors stop at {@code durableUpTo} (below), the due scan
 * skips rows numbered above it (nothing is sent before its hook is durable), and
 * {@link DedupeIndex#findDuplicate} leaves keys still in {@code inFlight} to the commit's own check.
 * (A kill -9 loses nothing written: RocksDB hands each write to the OS; the fsync is for
 * power loss.)
 *
 * <p><b>Durable up to.</b> {@code durableUpTo} is the highest number N such that every number
 * up to N is durable or failed; it moves (under the {@code published} monitor) only when the
 * oldest unresolved ticket is resolved. A failed write's numbers are a gap, never reused and
 * never visible in this process. Writes land in any order: a batch numbered after another
 * may be visible first. So every reader that walks hooks in commit order and keeps a cursor
 * ({@link HookReads#after}, {@link DeliveryScan}, the ledger's retention pass and
 * {@code pendingInOrder}, which a {@code fifo} dispatcher follows) reads
 * {@code durableUpTo} BEFORE making its iterator, and stops at the first hook numbered
 * above it: everything up to it had returned from its write (or failed) before the read,
 * so the iterator's view holds all of it, and nothing above is returned that a lower,
 * still-open number could precede. Paging with {@code next} therefore returns every hook
 * exactly once, in commit order, as before. Point reads ({@link HookReads#get}) read whatever is
 * written. Readers take no commit lock.
 *
 * <p><b>Dedupe.</b> The check runs under the commit lock against the database and, first,
 * against {@code inFlight}: the keys of commits past phase 1 whose write is not over (put in
 * phase 1, removed once the write and its fsync have returned, so the database shows them
 * durably by then). A copy
 * of such a key is answered a duplicate of that commit's id, and its commit, which waits for
 * the earlier numbers anyway, fails with a {@link HookStoreException} if that write failed
 * (nothing in it acknowledged; the sender's retry is then the first copy). {@link DedupeIndex#sweepDedupe}
 * takes the commit lock and leaves the entry of a key in {@code inFlight} alone (that
 * commit's put could land after the sweep's delete); any later renewal takes the lock after
 * the sweep has written. So a key is never committed twice and a renewal is never swept.
 *
 * <p><b>Lock order.</b> lifecycle (read side, held through all three phases), then
 * {@code commitLock}, then {@code published}; {@code published} is never held while taking
 * another lock, and the wait of phase 3 holds only the lifecycle read lock (the commits it
 * waits for already hold theirs, so a reopen waiting for the write side cannot starve them).
 * The control state's writes and the resume probe take the database's control lock instead
 * of the commit lock: they touch no hook, number or dedupe key.
 *
 * <p>The same batch holds one pending delivery row per destination the hook names
 * ({@link PendingHook#destinations()}), so a 202 means its deliveries are as durable as the
 * hook; everything after that is the {@link RocksDeliveryLedger}'s,
 * which shares this database and lifecycle but never takes the commit lock.
 *
 * <p>Thread-safe.
 */
final class GroupCommit {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);
    private static final UUID NO_ID = new UUID(0, 0);

    private final RocksDatabase database;
    private final RocksDeliveryLedger ledger;
    /** The dedupe TTL and the wall clock (ids, dedupe expiry). */
    private final RocksHookStore.Options options;
    private final UuidV7 ids = new UuidV7();
    /** Nanoseconds the group commits' log syncs took ({@link #syncLog}: one at a time). */
    private final AtomicLong commitSyncNanos = new AtomicLong();
    /** Commits whose (unsynced) write has returned, counted in {@link #syncLog}. */
    private final AtomicLong commitWrites = new AtomicLong();
    private final Object syncLock = new Object();
    @GuardedBy("syncLock")
    private long syncedUpTo;
    /** See {@link #setCommitClaims}; read once per commit, under the commit lock. */
    private volatile CommitClaims commitClaims;

    private final ReentrantLock commitLock = new ReentrantLock();

    /** Next commit sequence number. */
    @GuardedBy("commitLock")
    private long nextSeq;

    // sequence publication (see the class comment, "Commit protocol and ordering")
    /**
     * One commit's sequence numbers, from their assignment until its write is over. {@code last}
     * is set under the commit lock before the ticket is queued; {@code done} and {@code failed}
     * are read and written under this class's {@code published} monitor.
     */
    private static final class Ticket {
        final long first;
        long last;
        boolean done;
        boolean failed;

        Ticket(long first) {
            this.first = first;
        }
    }

    /**
     * A dedupe key a commit is writing, with the id it gets. At most one open commit writes a
     * key: a later one finds it here and answers a duplicate instead.
     */
    private record OpenKey(String id, Ticket ticket) {}

    /** Monitor for {@code unresolved} and the tickets' state; waited on by commits for earlier numbers. */
    private final Object published = new Object();
    /** Tickets in number order whose write is not over, or over but behind one that is not. */
    @GuardedBy("published")
    private final ArrayDeque<Ticket> unresolved = new ArrayDeque<>();
    /** Every number up to this one is durable or failed; written under {@code published}, read anywhere. */
    private volatile long durableUpTo;
    /** Dedupe keys of commits whose write is not over: put under the commit lock, removed after the write. */
    private final ConcurrentHashMap<ByteBuffer, OpenKey> inFlight = new ConcurrentHashMap<>();
    /** Each tenant's stored body bytes, added to once a commit's write returned (before it is visible to retention). */
    private final StoredBytes stored;
    /** Test seam (see {@link #onCommitWrite}); null in the server. */
    private volatile CommitWriteHook commitWriteHook;

    GroupCommit(RocksDatabase database, RocksDeliveryLedger ledger, RocksHookStore.Options options, StoredBytes stored) {
        this.database = database;
        this.ledger = ledger;
        this.options = options;
        this.stored = stored;
    }

    /**
     * When a dedupe key committed at {@code nowMillis} expires: the sum, saturated at
     * {@link Long#MAX_VALUE} (never expires). A wrapped sum would be a time in the past,
     * which turns dedupe off without a word.
     */
    static long dedupeExpiry(long nowMillis, long ttlMillis) {
        long sum = nowMillis + ttlMillis;
        boolean overflowed = ((nowMillis ^ sum) & (ttlMillis ^ sum)) < 0; // both operands differ in sign from the sum
        if (!overflowed) {
            return sum;
        }
        return ttlMillis < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }


    /**
     * Sets {@code nextSeq} past the last stored hook and past the {@link SequenceFloor}
     * retention left (ids likewise). The caller holds lifecycle's write lock
     * (it runs from {@link RocksDatabase#start} or a reopen), so no commit runs; the commit lock is taken all the same, as for every write of {@code nextSeq}.
     */
    void recoverSequence(RocksFamilies f) throws RocksDBException {
        commitLock.lock();
        try (RocksIterator it = f.db().newIterator(f.hooks())) {
            it.seekToLast();
            // max: after a reopen, numbers handed to failed batches stay consumed
            nextSeq = Math.max(nextSeq, 1);
            if (it.isValid()) {
                nextSeq = Math.max(nextSeq, Codec.u64(it.key()) + 1);
                ids.continueAfter(Codec.uuid(ByteBuffer.wrap(it.value(), 1, 16)));
            }
            it.status();
            // retention may have deleted every hook, the newest too: the floor it left carries on
            SequenceFloor.Floor floor = SequenceFloor.read(f.db(), f.meta());
            if (floor != null) {
                nextSeq = Math.max(nextSeq, floor.seq() + 1);
                ids.continueAfter(floor.id());
            }
            synchronized (published) {
                if (!unresolved.isEmpty()) { // every commit runs under lifecycle's read lock, and the caller holds the write lock
                    throw new IllegalStateException("commits still open while the store is (re)opened: " + unresolved.size());
                }
                durableUpTo = nextSeq - 1; // everything stored is durable (it was read back from the log at open)
            }
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Seconds the group commits' log syncs have taken since this store was opened
     * ({@code sluice_store_commit_sync_seconds_total}), from the call into RocksDB to its
     * return, which includes getting a core back once the disk is done. The syncs run one at
     * a time, so this figure's rate is the share of time a commit's sync was in progress:
     * near 1, commits wait on syncs that run back to back. A failed sync is not counted.
     */
    double commitSyncSeconds() {
        return commitSyncNanos.get() / 1e9;
    }

    /**
     * Who may claim new deliveries as they are committed ({@link CommitClaims}), or null for
     * nobody (every delivery is written due at once). A dispatcher sets itself while it runs.
     */
    void setCommitClaims(CommitClaims claims) {
        this.commitClaims = claims;
    }

    /**
     * Called by {@link #commit} around its fsynced write, on the committing thread, with the
     * batch's first sequence number. A test seam like {@link RocksDatabase#failWrites}: a test holds one
     * commit's write open here to see what other commits and readers do meanwhile; an
     * exception thrown by {@code beforeWrite} fails that commit as a failed write would.
     */
    interface CommitWriteHook {
        void beforeWrite(long firstSeq);

        /** After the batch is written (visible) and before the log's fsync (durable). */
        default void beforeSync(long firstSeq) {
        }

        void afterWrite(long firstSeq);
    }

    /** Installs (or, with null, removes) the {@link CommitWriteHook}; tests only. */
    void onCommitWrite(CommitWriteHook hook) {
        this.commitWriteHook = hook;
    }

    // ================================================================ commit

    /**
     * Commits a batch: ONE atomic write with fsync holding every new hook, its id-index
     * entry, its dedupe entries and a pending delivery row per destination it names (a
     * duplicate schedules nothing). Returns one result per hook, in order: ACCEPTED with
     * the new id, or DUPLICATE with the id of the hook already committed within the
     * dedupe TTL (or of the first copy of the key earlier in this batch).
     *
     * @throws HookStoreException when the write fails or the store is closed; then nothing in
     *                            the batch is acknowledged
     */
    List<CommitResult> commit(List<PendingHook> batch) {
        return commit(batch, null, null);
    }

    /**
     * As {@link #commit(List)}, but with {@code givenIds} non-null each hook is committed
     * under the id at its index (the fleet log's, see {@link org.sluice.edge.store.WorkingSet#commitWithIds}):
     * no dedupe check or entry, and a hook whose id is stored already (or earlier in the
     * batch) is answered DUPLICATE with nothing written for it. {@code carried} (null: none)
     * says where each hook's deliveries start ({@link org.sluice.edge.store.WorkingSet.Carried}).
     */
    List<CommitResult> commit(List<PendingHook> batch, List<UUID> givenIds,
                              List<Map<String, WorkingSet.Carried>> carried) {
        int n = batch.size();
        if (givenIds != null && givenIds.size() != n) {
            throw new IllegalArgumentException(givenIds.size() + " ids for " + n + " hooks");
        }
        if (carried != null && carried.size() != n) {
            throw new IllegalArgumentException(carried.size() + " carried states for " + n + " hooks");
        }
        byte[][] dedupeKeys = new byte[n][];
        for (int i = 0; givenIds == null && i < n; i++) {
            PendingHook h = batch.get(i);
            if (h.dedupeKey() != null) {
                dedupeKeys[i] = Codec.dedupeKey(h.tenant(), h.source(), h.dedupeKey());
            }
        }
        // encoding (the body copy, off-heap) happens before the lock; the id is filled in under it
        BatchRecords records = BatchRecords.encode(batch, NO_ID);
        CommitResult[] results = new CommitResult[n];
        database.write(f -> {
            try (WriteBatch wb = new WriteBatch()) {
                Assigned assigned = assign(f, batch, givenIds, carried, dedupeKeys, records, results, wb);
                writeAssigned(f, assigned, wb, () -> stored.committed(batch, results));
                awaitEarlierCommits(assigned);
            }
            return null;
        }); // a failed write leaves the sequence numbers it handed out consumed: a gap, never reused
        return Arrays.asList(results);
    }

    /**
     * What {@link #assign} decided for one commit: its numbers ({@code ticket}, null when
     * every hook was a duplicate), the dedupe keys it writes ({@code keys}, in
     * {@code inFlight} until the write is over), the commits whose open writes it answered
     * duplicates of ({@code dependsOn}), and the highest number handed out before it returned
     * ({@code waitFor}: the commit answers once everything up to there is durable).
     */
    private record Assigned(Ticket ticket, long waitFor, List<ByteBuffer> keys, List<Ticket> dependsOn,
                            List<LedgerTransitions.NewRow> scheduled, CommitClaims claims,
                            List<CommitClaims.Claimed> claimed) {}

    /**
     * Phase 1, under the commit lock and with no write: the dedupe checks (the database,
     * then the keys of writes still open), the numbers and ids, the batch built.
     */
    private Assigned assign(RocksFamilies f, List<PendingHook> batch, List<UUID> givenIds,
                            List<Map<String, WorkingSet.Carried>> carried, byte[][] dedupeKeys,
                            BatchRecords records, CommitResult[] results, WriteBatch wb) throws RocksDBException {
        // the commit lock is taken here rather than through underCommitLock so that Error Prone sees it
        // held where nextSeq is used (it cannot know that a lambda handed to a helper runs at once)
        commitLock.lock();
        try {
            int n = batch.size();
            long now = options.wallClockMillis().getAsLong();
            long expiry = dedupeExpiry(now, options.dedupeTtlMillis());
            Map<ByteBuffer, String> firstInBatch = new HashMap<>();
            List<LedgerTransitions.NewRow> scheduled = new ArrayList<>();
            List<ByteBuffer> keys = new ArrayList<>();
            List<Ticket> dependsOn = new ArrayList<>();
            CommitClaims claims = commitClaims;
            List<CommitClaims.Claimed> claimed = new ArrayList<>();
            long firstSeq = nextSeq;
            Ticket ticket = null;
            try {
                for (int i = 0; i < n; i++) {
                    byte[] dk = dedupeKeys[i];
                    ByteBuffer key = dk == null ? null : ByteBuffer.wrap(dk); // compared by content
                    if (key != null) {
                        String first = firstInBatch.get(key);
                        if (first != null) {
                            results[i] = CommitResult.duplicate(first);
                            continue;
                        }
                        OpenKey open = inFlight.get(key);
                        if (open != null) { // renewed by a commit whose write is still open: a duplicate if it lands
                            results[i] = CommitResult.duplicate(open.id());
                            dependsOn.add(open.ticket());
                            continue;
                        }
                        byte[] existing = f.db().get(f.dedupe(), dk);
                        if (existing != null && Codec.dedupeValueExpiry(existing) > now) {
                            results[i] = CommitResult.duplicate(Codec.dedupeValueId(existing).toString());
                            continue;
                        }
                    }
                    UUID id;
                    if (givenIds == null) {
                        id = null;
                    } else {
                        id = givenIds.get(i);
                        String held = heldId(f, id, firstInBatch);
                        if (held != null) {
                            results[i] = CommitResult.duplicate(held);
                            continue;
                        }
                    }
                    if (ticket == null) {
                        ticket = new Ticket(firstSeq);
                    }
                    if (id == null) {
                        id = ids.next(now);
                    }
                    ledger.schedule(wb, f.ledger(), nextSeq, id, batch.get(i), carried == null ? null : carried.get(i), now,
                            claims, claimed, scheduled);
                    long seqNo = nextSeq++;
                    byte[] seq = Codec.u64(seqNo);
                    byte[] idBytes = Codec.uuid(id);
                    records.setId(i, id);
                    records.put(wb, f.hooks(), seqNo, i);
                    wb.put(f.hookIds(), idBytes, seq);
                    String idText = id.toString();
                    if (key != null) {
                        wb.put(f.dedupe(), dk, Codec.dedupeValue(id, expiry));
                        wb.put(f.dedupeExpiry(), Codec.expiryKey(expiry, dk), new byte[0]);
                        firstInBatch.put(key, idText);
                        keys.add(key);
                    }
                    if (givenIds != null) {
                        firstInBatch.put(ByteBuffer.wrap(idBytes), idText); // a given id twice in one batch: the second is a duplicate
                    }
                    results[i] = CommitResult.accepted(idText);
                }
            } catch (RocksDBException | RuntimeException | Error e) {
                handOver(claims, claimed, 0, false);
                if (ticket != null) { // numbers were handed out: resolve them as failed, or later commits would wait for them
                    ticket.last = nextSeq - 1;
                    synchronized (published) {
                        unresolved.addLast(ticket);
                    }
                    resolve(ticket, false);
                }
                throw e;
            }
            if (ticket != null) {
                ticket.last = nextSeq - 1;
                for (ByteBuffer key : keys) {
                    inFlight.put(key, new OpenKey(firstInBatch.get(key), ticket));
                }
                synchronized (published) {
                    unresolved.addLast(ticket); // in number order: tickets are only made here, under the commit lock
                }
            }
            return new Assigned(ticket, nextSeq - 1, keys, dependsOn, scheduled, claims, claimed);
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * The id as text if a hook is stored under {@code id}, or an earlier hook of the batch
     * has it ({@code firstInBatch}, keyed by the id's 16 bytes for given ids), else null.
     */
    private static String heldId(RocksFamilies f, UUID id, Map<ByteBuffer, String> firstInBatch) throws RocksDBException {
        byte[] idBytes = Codec.uuid(id);
        if (firstInBatch.containsKey(ByteBuffer.wrap(idBytes)) || f.db().get(f.hookIds(), idBytes) != null) {
            return id.toString();
        }
        return null;
    }

    /**
     * Phase 2, outside the commit lock: the fsynced write, which RocksDB may merge with other
     * commits' writes into one log write and one fsync. Whatever happens, the ticket is
     * resolved (durable or failed) and the keys leave {@code inFlight}, so that no later
     * commit or reader waits for it forever.
     */
    private void writeAssigned(RocksFamilies f, Assigned assigned, WriteBatch wb, Runnable onWritten) throws RocksDBException {
        Ticket ticket = assigned.ticket();
        if (ticket == null) {
            return; // every hook a duplicate: nothing to write
        }
        boolean written = false;
        try {
            CommitWriteHook hook = commitWriteHook;
            if (hook != null) {
                hook.beforeWrite(ticket.first);
            }
            f.db().write(f.lazyWrite(), wb);
            if (hook != null) {
                hook.beforeSync(ticket.first);
            }
            if (options.syncCommits()) { // a working set rebuilt from the log at every boot is not synced
                syncLog(f);
            }
            written = true;
            if (hook != null) {
                hook.afterWrite(ticket.first);
            }
        } finally {
            // the write is visible (or failed) before its keys leave: a later commit then finds them in the database
            for (ByteBuffer key : assigned.keys()) {
                inFlight.remove(key);
            }
            if (written) { // counted before the numbers are durable-up-to, so retention never deletes an uncounted hook
                onWritten.run();
            }
            resolve(ticket, written);
            if (written) { // before the hand-over: a pass it wakes finds the rows above the scan floor
                ledger.scheduled(assigned.scheduled());
            }
            handOver(assigned.claims(), assigned.claimed(), assigned.scheduled().size() - assigned.claimed().size(),
                    written);
        }
        database.markHealthy();
    }

    /**
     * Tells the dispatcher that {@code rows} deliveries were made due at once outside a
     * commit (a replay's redeliveries in the working set, {@link RocksHookStore#redeliverHeld}),
     * so that it looks now rather than at its next poll; never throws.
     */
    void handOverDue(int rows) {
        if (rows > 0) {
            handOver(commitClaims, List.of(), rows, true);
        }
    }

    /** Tells {@code claims} how the write of the commit's deliveries went ({@link CommitClaims#committed}); never throws. */
    private static void handOver(CommitClaims claims, List<CommitClaims.Claimed> claimed, int unclaimed, boolean written) {
        if (claims == null || claimed.isEmpty() && unclaimed == 0) {
            return;
        }
        try {
            claims.committed(claimed, unclaimed, written);
        } catch (RuntimeException e) { // the rows are stored claimed: they come due again when the claims expire
            LOG.warn("starting {} deliveries claimed at commit failed: {}", claimed.size(), e.toString());
        }
    }

    /**
     * Makes every commit written so far durable: one {@code fsync} of the write-ahead log
     * ({@code SyncWAL}) at a time, and a commit whose write an fsync that began after it
     * covered needs none of its own (group commit: while one fsync runs, the commits written
     * meanwhile queue here, and the first of them syncs for all). Outside RocksDB's write
     * path, so that unsynced writes (the delivery ledger's) never wait for an fsync.
     */
    private void syncLog(RocksFamilies f) throws RocksDBException {
        long mine = commitWrites.incrementAndGet(); // this commit's write has returned
        synchronized (syncLock) {
            if (syncedUpTo >= mine) {
                return; // an fsync that began after this write returned covered it
            }
            long upTo = commitWrites.get(); // every write counted so far has returned: this fsync covers them
            long start = System.nanoTime();
            f.db().syncWal();
            commitSyncNanos.addAndGet(System.nanoTime() - start);
            syncedUpTo = upTo;
        }
    }

    /**
     * Phase 3: waits until every number handed out before this commit's own is durable or
     * failed, so that an answered id is always readable by a pager, and checks that no
     * duplicate it answered names a hook whose write failed.
     */
    private void awaitEarlierCommits(Assigned assigned) {
        boolean interrupted = false;
        synchronized (published) {
            while (durableUpTo < assigned.waitFor()) {
                try {
                    published.wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the numbers below are being written: this wait is short and must not be cut
                }
            }
            for (Ticket t : assigned.dependsOn()) {
                if (t.failed) {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    throw new HookStoreException("write to the store at " + database.dir()
                            + " failed: the batch holding the first copy of a dedupe key in this batch could not be written");
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void resolve(Ticket ticket, boolean written) {
        synchronized (published) {
            ticket.done = true;
            ticket.failed = !written;
            while (!unresolved.isEmpty() && unresolved.peekFirst().done) {
                durableUpTo = unresolved.pollFirst().last;
            }
            published.notifyAll();
        }
    }

    /**
     * The highest commit sequence number below which (inclusive) every number is durable or
     * failed: what pagers read up to. See the class comment.
     */
    long durableUpTo() {
        return durableUpTo;
    }

    // ================================================================ for the dedupe index

    /** Whether a commit whose write is not over holds this dedupe key (see "Dedupe"). */
    boolean writing(byte[] dedupeKey) {
        return inFlight.containsKey(ByteBuffer.wrap(dedupeKey));
    }

    /** Runs {@code body} under the commit lock (the dedupe sweep; see "Dedupe"). */
    <T> T underCommitLock(RocksDatabase.Action<T> body) throws RocksDBException {
        commitLock.lock();
        try {
            return body.run();
        } finally {
            commitLock.unlock();
        }
    }
}

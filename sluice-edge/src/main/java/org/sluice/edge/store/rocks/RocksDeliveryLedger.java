package org.sluice.edge.store.rocks;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongPredicate;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryScan;
import org.sluice.edge.store.DestinationBacklog;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.RetentionResult;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;
import org.sluice.edge.store.rocks.LedgerStore.LedgerFamilies;

/**
 * The {@link DeliveryLedger} in RocksDB: one row per (hook, destination), in the
 * {@link RocksHookStore}'s database, reached through a narrow {@link LedgerStore} handle.
 * Obtained from {@link RocksHookStore#deliveries()}. Its work is done by five parts that
 * share one {@link LedgerState}: {@link LedgerQueries} (reads), {@link LedgerTransitions}
 * (the commit's pending rows and the dispatcher's transitions), {@link LedgerRedelivery}
 * (the operator's redelivery), {@link RocksPauses} (paused destinations),
 * {@link LedgerRetention} and {@link LedgerEviction} (a working set giving hooks up).
 *
 * <h2>Column families and invariants</h2>
 * {@code deliveries} holds the rows, keyed (hook sequence number, destination);
 * {@code delivery_due} the due index, keyed (destination, due time, sequence number);
 * {@code delivery_by_destination} the pending and dead index, keyed (state, destination,
 * sequence number) with the hook id as value; {@code destinations} the pause records.
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
 * Pending rows are written by {@link RocksHookStore#commit} in the fsynced batch that accepts
 * the hook, so a 202 means they survive any crash. Attempts, delivered and dead marks are
 * written without fsync (a lost mark only re-sends the attempt after a crash: at least
 * once); a redelivery and a pause change are fsynced (operator actions that are answered).
 * RocksDB recovers its write-ahead log as a prefix, so every mark written before the last
 * fsynced write (any later commit) survives even a power loss; a SIGKILL loses no
 * completed write at all.
 *
 * <h2>Threads and locks</h2>
 * Reads ({@link #due}, {@link #deliveries}, {@link #deadLetters}, {@link #counts}) take only
 * the store's lifecycle read lock. Transitions, redelivery and retention take the
 * lifecycle read lock and then the ledger's lock ({@link LedgerState#lock}), which
 * serialises the read-modify-write of rows; neither is the commit lock, so delivery work
 * never blocks ingest. A commit writes only rows of new sequence numbers, which no
 * transition can be looking at. The work under the ledger's lock is a few point reads per
 * row and one unsynced write ({@link #apply}: its transitions; a retention pass: at most its
 * {@code maxHooks} hooks' rows), never network I/O. Due scans seek from a per-destination
 * floor kept in memory ({@link ScanFloor}), lowered after every write of a due entry.
 * Counters are atomics updated after each successful write, rebuilt from
 * {@code delivery_by_destination} at open and after a reopen (a scan of the pending and
 * dead entries, proportional to their number).
 *
 * <p>Thread-safe.
 */
public final class RocksDeliveryLedger implements DeliveryLedger, SharedPauses {

    private final LedgerState state;
    private final LedgerQueries queries;
    private final LedgerTransitions transitions;
    private final LedgerRedelivery redelivery;
    private final LedgerRetention retention;
    private final LedgerEviction eviction;
    private final RocksPauses pauses;

    RocksDeliveryLedger(LedgerStore store, StoreReclaim reclaims, StoredBytes stored) {
        this.state = new LedgerState(store);
        this.queries = new LedgerQueries(state);
        this.transitions = new LedgerTransitions(state);
        this.redelivery = new LedgerRedelivery(state);
        this.retention = new LedgerRetention(state, reclaims, stored);
        this.eviction = new LedgerEviction(state);
        this.pauses = new RocksPauses(store);
    }

    // ================================================================ for the store (commit, open, reads)

    /** See {@link LedgerTransitions#schedule}; the caller holds the commit lock. */
    void schedule(WriteBatch wb, LedgerFamilies f, long seq, UUID id, PendingHook hook,
                  Map<String, WorkingSet.Carried> carried, long nowMillis,
                  CommitClaims claims, List<CommitClaims.Claimed> claimed, List<LedgerTransitions.NewRow> scheduled)
            throws RocksDBException {
        transitions.schedule(wb, f, seq, id, hook, carried, nowMillis, claims, claimed, scheduled);
    }

    /** See {@link LedgerTransitions#scheduled}; after the commit's write succeeded. */
    void scheduled(List<LedgerTransitions.NewRow> rows) {
        transitions.scheduled(rows);
    }

    /** See {@link LedgerRedelivery#redeliverHeld}: a replay's fresh deliveries of hooks the working set holds. */
    List<String> redeliverHeld(Collection<String> hookIds, String destination, long nowMillis) {
        return redelivery.redeliverHeld(hookIds, destination, nowMillis);
    }

    /** See {@link LedgerEviction#forget}: the working set gives up hooks ({@link RocksHookStore#forget}). */
    int forget(Collection<String> hookIds) {
        return eviction.forget(hookIds);
    }

    /** Recounts pending and dead rows and forgets the paused set; at open and after a reopen (no concurrent writer). */
    void rebuildCounts(LedgerFamilies f) {
        pauses.forget();
        state.rebuild(f);
    }

    /** The sequence number {@code id} was committed under if the cache knows it, else -1 (see {@link SeqCache}). */
    long cachedSeq(UUID id) {
        return state.seqCache.get(id);
    }

    /**
     * The hook committed as {@code id} under {@code seq} (-1: the number the cache remembers
     * for the id, if any) if the cache keeps it, else null; counts as one of the reads it was
     * kept for ({@link SeqCache#take}).
     */
    StoredHook cachedHook(UUID id, long seq) {
        return state.seqCache.take(id, seq);
    }

    /** The held destinations, which the control state shares ({@link SharedPauses}). */
    @Override
    public DestinationPauses pauses() {
        return pauses;
    }

    /** What the parts share (the tests' checks read the counters and the floors). */
    LedgerState state() {
        return state;
    }

    // ================================================================ DeliveryLedger

    @Override
    public Due dueBy(String destination, long nowMillis, int limit, LongPredicate held) {
        return queries.dueBy(destination, nowMillis, limit, held);
    }

    @Override
    public void unheld(String destination, long nextAttemptAtMillis) {
        state.floor(destination).lower(nextAttemptAtMillis);
    }

    @Override
    public long othersWrites() {
        return state.othersWrites.get();
    }

    @Override
    public List<DeliveryRow> deliveries(String hookId) {
        return queries.deliveries(hookId);
    }

    @Override
    public DeadLetterPage deadLetters(String destination, String afterId, int limit) {
        return queries.deadLetters(destination, afterId, limit);
    }

    @Override
    public DestinationBacklog counts(String destination, long nowMillis) {
        return queries.counts(destination, nowMillis);
    }

    @Override
    public long pendingCount(String destination) {
        return queries.pendingCount(destination);
    }

    @Override
    public List<PendingRef> pendingInOrder(String destination, long afterSeq, int limit) {
        return queries.pendingInOrder(destination, afterSeq, limit);
    }

    @Override
    public DeliveryScan.Page scan(String destination, long fromMillis, long toMillis, String afterId, int maxHooks) {
        return queries.scan(destination, fromMillis, toMillis, afterId, maxHooks);
    }

    @Override
    public Set<String> destinations() {
        return Set.copyOf(state.counted());
    }

    @Override
    public long cachedHookBytes() {
        return state.seqCache.hookBytes();
    }

    @Override
    public boolean[] apply(List<Transition> changes) {
        return transitions.apply(changes);
    }

    @Override
    public Optional<List<DeliveryRow>> redeliver(String hookId, Collection<String> destinations, long nowMillis) {
        return redelivery.redeliver(hookId, destinations, nowMillis);
    }

    @Override
    public RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks) {
        return retention.retentionPass(nowMillis, hooksMaxAgeMillis, deadMaxAgeMillis, maxHooks, false);
    }

    @Override
    public RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks,
                                         boolean storeFull) {
        return retention.retentionPass(nowMillis, hooksMaxAgeMillis, deadMaxAgeMillis, maxHooks, storeFull);
    }
}

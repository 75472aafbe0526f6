package org.sluice.edge.store.rocks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.sluice.edge.store.CommitClaims;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.WorkingSet;

/**
 * The {@link HookStore} in one RocksDB database under the data dir: committed hooks, the
 * dedupe index, the delivery ledger, and the control state's overrides, audit trail and
 * pauses ({@link RocksControlState}). This class opens the database and wires its parts,
 * each of which has its own comment:
 * <ul>
 *   <li>{@link RocksDatabase}: the native handles, the lifecycle lock, health and resume,
 *       the write-ahead log's bound and the pace of deletions;</li>
 *   <li>{@link GroupCommit}: the commit protocol (numbers, ids, dedupe checks, the group
 *       fsync) and the durable-up-to number every ordered reader stops at;</li>
 *   <li>{@link DedupeIndex}: dedupe lookups and the sweep;</li>
 *   <li>{@link HookReads}: reads by id, for the dispatcher, and in pages;</li>
 *   <li>{@link RocksDeliveryLedger}: the delivery state, reached through a narrow
 *       {@link LedgerStore} handle;</li>
 *   <li>{@link StoredBytes}: each tenant's stored body bytes, when a share is configured.</li>
 * </ul>
 * The on-disk format is {@link RocksDatabase#FORMAT}.
 *
 * <p>It is also a {@link WorkingSet}: under {@code store.kind: kafka} it holds the hooks of
 * the log partitions the node owns, committed under the log's ids
 * ({@link #commitWithIds}) and given up when the node loses them ({@link #forget}).
 *
 * <p>Thread-safe.
 */
public final class RocksHookStore implements WorkingSet {

    /** {@link Options#maxWalBytes()} by default: 1 GiB (see "The write-ahead log's bound" in {@link RocksDatabase}). */
    public static final long DEFAULT_MAX_WAL_BYTES = 1L << 30;
    /** The smallest bound {@link Options} takes: 1 MiB. */
    static final long MIN_MAX_WAL_BYTES = 1L << 20;

    /**
     * How the store is run.
     *
     * @param dedupeTtlMillis how long a committed dedupe key makes later copies duplicates ({@code dedupe.ttl_seconds})
     * @param wallClockMillis wall-clock epoch milliseconds, for ids, dedupe expiry and audit times
     * @param countStoredBytes whether the store counts each tenant's stored body bytes
     *                         ({@link #storedBytes}, for {@code rate_limits.*.max_stored_bytes}):
     *                         a scan of every hook at open, a map of one entry per tenant with a
     *                         hook stored; off by default
     * @param syncCommits     whether each group commit is fsynced before it answers (on by
     *                        default); off for a working set ({@code store.kind: kafka}),
     *                        which is emptied at every boot and rebuilt from the log, so
     *                        that no write of it waits for the disk (docs/fleet-log.md,
     *                        "What a node keeps")
     */
    public record Options(long dedupeTtlMillis, LongSupplier wallClockMillis, long maxWalBytes,
                          boolean countStoredBytes, boolean syncCommits) {

        public static final Duration DEFAULT_DEDUPE_TTL = Duration.ofDays(3); // 72 hours

        public Options {
            if (dedupeTtlMillis < 1) {
                throw new IllegalArgumentException("dedupe.ttl_seconds must be at least 1 second, got " + dedupeTtlMillis + " ms");
            }
            Objects.requireNonNull(wallClockMillis, "wallClockMillis");
            if (maxWalBytes < MIN_MAX_WAL_BYTES) {
                throw new IllegalArgumentException("the write-ahead log's bound must be at least " + MIN_MAX_WAL_BYTES
                        + " bytes, got " + maxWalBytes);
            }
        }

        /** Each group commit fsynced. */
        public Options(long dedupeTtlMillis, LongSupplier wallClockMillis, long maxWalBytes, boolean countStoredBytes) {
            this(dedupeTtlMillis, wallClockMillis, maxWalBytes, countStoredBytes, true);
        }

        /** Not counting stored bytes per tenant. */
        public Options(long dedupeTtlMillis, LongSupplier wallClockMillis, long maxWalBytes) {
            this(dedupeTtlMillis, wallClockMillis, maxWalBytes, false);
        }

        /** The dedupe TTL and the wall clock given, the write-ahead log's default bound. */
        public Options(long dedupeTtlMillis, LongSupplier wallClockMillis) {
            this(dedupeTtlMillis, wallClockMillis, DEFAULT_MAX_WAL_BYTES);
        }

        public static Options defaults() {
            return new Options(DEFAULT_DEDUPE_TTL.toMillis(), System::currentTimeMillis);
        }

        public Options withDedupeTtl(Duration ttl) {
            return new Options(ttl.toMillis(), wallClockMillis, maxWalBytes, countStoredBytes, syncCommits);
        }

        public Options withWallClock(LongSupplier clock) {
            return new Options(dedupeTtlMillis, clock, maxWalBytes, countStoredBytes, syncCommits);
        }

        /** The write-ahead log's bound (see "The write-ahead log's bound" in {@link RocksDatabase}). */
        public Options withMaxWalBytes(long bytes) {
            return new Options(dedupeTtlMillis, wallClockMillis, bytes, countStoredBytes, syncCommits);
        }

        /** Whether each tenant's stored body bytes are counted (on when some tenant has {@code max_stored_bytes}). */
        public Options withCountStoredBytes(boolean count) {
            return new Options(dedupeTtlMillis, wallClockMillis, maxWalBytes, count, syncCommits);
        }

        /** Whether each group commit is fsynced (off for a working set that is rebuilt from the log). */
        public Options withSyncCommits(boolean sync) {
            return new Options(dedupeTtlMillis, wallClockMillis, maxWalBytes, countStoredBytes, sync);
        }
    }

    private final RocksDatabase database;
    private final Options options;
    private final RocksDeliveryLedger ledger;
    private final GroupCommit commits;
    private final DedupeIndex dedupe;
    private final HookReads reads;
    private final StoreReclaim reclaims = new StoreReclaim();
    private final StoredBytes stored;

    private RocksHookStore(RocksDatabase database, Options options) {
        this.database = database;
        this.options = options;
        this.stored = new StoredBytes(options.countStoredBytes());
        this.ledger = new RocksDeliveryLedger(new LedgerHandle(), reclaims, stored);
        this.commits = new GroupCommit(database, ledger, options, stored);
        this.dedupe = new DedupeIndex(database, commits);
        this.reads = new HookReads(database, commits, ledger);
        database.start(f -> { // at open, and after every reopen: no commit runs
            commits.recoverSequence(f);
            ledger.rebuildCounts(f.ledger());
            stored.rebuild(f);
        });
    }

    /** Opens (creating if needed) the store under {@code dir} with default options. */
    public static RocksHookStore open(Path dir) {
        return open(dir, Options.defaults());
    }

    /**
     * Opens (creating if needed) the store under {@code dir}. Fails with a
     * {@link HookStoreException} naming the dir when it cannot be created or read, when
     * another process (or another open store in this one) holds it, or when it is not a
     * Sluice store of this format.
     */
    public static RocksHookStore open(Path dir, Options options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        return new RocksHookStore(RocksDatabase.open(dir, options.maxWalBytes(), options.wallClockMillis()), options);
    }

    /** The ledger's narrow handle on this store: its families, the lifecycle read lock, its writes, durableUpTo. */
    private final class LedgerHandle implements LedgerStore {
        @Override
        public <T> T read(LedgerWork<T> body) {
            return database.read(f -> body.run(f.ledger(), null));
        }

        @Override
        public <T> T write(boolean sync, LedgerWork<T> body) {
            return database.write(f -> {
                T result = body.run(f.ledger(), sync ? f.syncWrite() : f.lazyWrite());
                if (sync) {
                    database.markHealthy();
                }
                return result;
            });
        }

        @Override
        public long durableUpTo() {
            return commits.durableUpTo();
        }
    }

    // ================================================================ for the store's own parts and tests

    /** The database under this store (the control state's writes, tests' raw reads). */
    RocksDatabase database() {
        return database;
    }

    /** The data dir this store was opened on. */
    public Path dir() {
        return database.dir();
    }

    /**
     * Test seam, package-private on purpose: while {@code true}, every write fails before
     * touching RocksDB ({@link RocksDatabase#failWrites}). Tests elsewhere reach it through
     * the test-only {@code org.sluice.edge.store.rocks.StoreFaults}; the server never calls it.
     */
    void failWrites(boolean fail) {
        database.failWrites(fail);
    }

    /** Installs (or, with null, removes) the {@link GroupCommit.CommitWriteHook}; tests only. */
    void onCommitWrite(GroupCommit.CommitWriteHook hook) {
        commits.onCommitWrite(hook);
    }

    // ================================================================ HookStore

    @Override
    public RocksDeliveryLedger deliveries() {
        return ledger;
    }

    @Override
    public List<CommitResult> commit(List<PendingHook> batch) {
        return commits.commit(batch);
    }

    /**
     * The body bytes {@code tenant} has in this store: counted only when the store was opened
     * with {@link Options#countStoredBytes()}, else 0. From memory, no I/O.
     */
    @Override
    public long storedBytes(String tenant) {
        return stored.of(tenant);
    }

    /** How many tenants the stored-bytes count holds an entry for (at most those with a hook stored); tests. */
    int storedBytesTenants() {
        return stored.tenants();
    }

    @Override
    public List<CommitResult> commitWithIds(List<PendingHook> batch, List<UUID> ids, List<Map<String, Carried>> carried) {
        return commits.commit(batch, ids, carried);
    }

    @Override
    public List<String> redeliverHeld(Collection<String> ids, String destination, long nowMillis) {
        List<String> fresh = ledger.redeliverHeld(ids, destination, nowMillis);
        commits.handOverDue(fresh.size());
        return fresh;
    }

    @Override
    public int forget(Collection<String> ids) {
        return ledger.forget(ids);
    }

    @Override
    public void setCommitClaims(CommitClaims claims) {
        commits.setCommitClaims(claims);
    }

    @Override
    public long dedupeTtlMillis() {
        return options.dedupeTtlMillis();
    }

    @Override
    public Optional<String> findDuplicate(String tenant, String source, String key, long nowMillis) {
        return dedupe.findDuplicate(tenant, source, key, nowMillis);
    }

    @Override
    public DuplicateLookup findDuplicateInMemory(String tenant, String source, String key, long nowMillis) {
        return dedupe.findDuplicateInMemory(tenant, source, key, nowMillis);
    }

    @Override
    public int sweepDedupe(int maxEntries, long nowMillis) {
        return dedupe.sweepDedupe(maxEntries, nowMillis);
    }

    @Override
    public Optional<StoredHook> get(String id) {
        return reads.get(id);
    }

    @Override
    public Optional<StoredHook> getForDelivery(String id, long seq) {
        return reads.getForDelivery(id, seq);
    }

    @Override
    public StoredHook[] getForDelivery(List<String> ids, long[] seqs) {
        return reads.getForDelivery(ids, seqs);
    }

    @Override
    public long deliveryReads(boolean fromMemory) {
        return reads.deliveryReads(fromMemory);
    }

    @Override
    public HookPage after(String afterId, int limit, long maxBytes) {
        return reads.after(afterId, limit, maxBytes);
    }

    @Override
    public HookSummary.Page newest(String afterId, int limit) {
        return reads.newest(afterId, limit);
    }

    @Override
    public String location() {
        return database.dir().toString();
    }

    @Override
    public boolean isOpen() {
        return database.isOpen();
    }

    @Override
    public boolean isHealthy() {
        return database.isHealthy();
    }

    @Override
    public boolean tryResume() {
        return database.tryResume();
    }

    /**
     * SST files of every column family (including files a compaction has made obsolete but
     * not yet deleted) plus the memtables; the write-ahead log is not counted. RocksDB
     * properties: cheap, no I/O.
     */
    @Override
    public long approximateBytes() {
        return database.read(f -> f.db().getAggregatedLongProperty("rocksdb.total-sst-files-size")
                + f.db().getAggregatedLongProperty("rocksdb.size-all-mem-tables"));
    }

    /**
     * Flushes the memtables (where the deletions sit as tombstones, and which never shrink in
     * place) and compacts the key ranges retention deleted hooks from since the last call,
     * and at most once a minute every family retention and the dedupe sweep delete from
     * ({@link StoreReclaim}). Takes the lifecycle read lock, not the commit lock, so ingest
     * goes on meanwhile.
     */
    @Override
    public void reclaim() {
        database.read(f -> {
            reclaims.run(f, database.wallClockMillis());
            return null;
        });
    }

    @Override
    public long walSyncs() {
        return database.walSyncs();
    }

    @Override
    public double commitSyncSeconds() {
        return commits.commitSyncSeconds();
    }

    @Override
    public void close() {
        database.close();
    }

    @Override
    public String toString() {
        return "RocksHookStore[" + database.dir() + "]";
    }
}

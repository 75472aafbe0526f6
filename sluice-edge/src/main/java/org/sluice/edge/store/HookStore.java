package org.sluice.edge.store;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BackgroundErrorReason;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.HistogramType;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's durable store: committed hooks, the dedupe index, rate-limit overrides and
 * their audit trail, in one RocksDB database under the data dir.
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
 * {@link #findDuplicate} leaves keys still in {@code inFlight} to the commit's own check.
 * (A kill -9 loses nothing written: RocksDB hands each write to the OS; the fsync is for
 * power loss.)
 *
 * <p><b>Durable up to.</b> {@code durableUpTo} is the highest number N such that every number
 * up to N is durable or failed; it moves (under the {@code published} monitor) only when the
 * oldest unresolved ticket is resolved. A failed write's numbers are a gap, never reused and
 * never visible in this process. Writes land in any order: a batch numbered after another
 * may be visible first. So every reader that walks hooks in commit order and keeps a cursor
 * ({@link #after}, {@link DeliveryScan}, the ledger's retention pass and
 * {@code pendingInOrder}, which a {@code fifo} dispatcher follows) reads
 * {@code durableUpTo} BEFORE making its iterator, and stops at the first hook numbered
 * above it: everything up to it had returned from its write (or failed) before the read,
 * so the iterator's view holds all of it, and nothing above is returned that a lower,
 * still-open number could precede. Paging with {@code next} therefore returns every hook
 * exactly once, in commit order, as before. Point reads ({@link #get}) read whatever is
 * written. Readers take no commit lock.
 *
 * <p><b>Dedupe.</b> The check runs under the commit lock against the database and, first,
 * against {@code inFlight}: the keys of commits past phase 1 whose write is not over (put in
 * phase 1, removed once the write and its fsync have returned, so the database shows them
 * durably by then). A copy
 * of such a key is answered a duplicate of that commit's id, and its commit, which waits for
 * the earlier numbers anyway, fails with a {@link HookStoreException} if that write failed
 * (nothing in it acknowledged; the sender's retry is then the first copy). {@link #sweepDedupe}
 * takes the commit lock and leaves the entry of a key in {@code inFlight} alone (that
 * commit's put could land after the sweep's delete); any later renewal takes the lock after
 * the sweep has written. So a key is never committed twice and a renewal is never swept.
 *
 * <p><b>Lock order.</b> lifecycle (read side, held through all three phases), then
 * {@code commitLock}, then {@code published}; {@code published} is never held while taking
 * another lock, and the wait of phase 3 holds only the lifecycle read lock (the commits it
 * waits for already hold theirs, so a reopen waiting for the write side cannot starve them).
 * The override store's writes and the resume probe take {@code overrideLock} instead of the
 * commit lock: they touch no hook, number or dedupe key.
 *
 * <p>The same batch holds one pending delivery row per destination the hook names
 * ({@link PendingHook#destinations()}), so a 202 means its deliveries are as durable as the
 * hook; everything after that is the {@link DeliveryLedger}'s ({@link #deliveries()}),
 * which shares this database and lifecycle but never takes the commit lock.
 *
 * <p><b>Counting fsyncs.</b> Because commits share syncs, the number of commits says little
 * about the disk; RocksDB's statistics count the log syncs themselves ({@link #walSyncs()},
 * exported as {@code sluice_store_wal_syncs_total}). They keep tickers only, every
 * histogram ignored, so the timing of the histograms is off too: what a write or read pays
 * is a few relaxed adds to per-core counters.
 *
 * <p><b>The write-ahead log's bound.</b> A log file can be deleted only once every family
 * with a write in it has flushed that write to a table file. A family written rarely (the
 * format mark in {@code meta}, an override, the ids) fills its memtable late, so on its own
 * RocksDB would keep every log since that write, up to four times all the families'
 * memtables together (about 6 GiB here). {@link Options#maxWalBytes()} (default
 * {@value #DEFAULT_MAX_WAL_BYTES} bytes, 1 GiB) is RocksDB's {@code max_total_wal_size}:
 * past it, the next write has the families that hold the oldest log flushed, and the log
 * is deleted once they are. The logs on disk then stay under that figure plus what is
 * written while those flushes run, and a restart replays no more than that.
 *
 * <p><b>Deletions at a pace.</b> Such a flush retires many logs at once, and a compaction
 * many table files. Unlinking a gigabyte at once held the disk's syncs for tens of
 * milliseconds (this project's disk is mounted with online discard), and every commit waits
 * for a sync. So the store's files are deleted through RocksDB's {@code SstFileManager}
 * at {@value #DELETE_BYTES_PER_SECOND} bytes a second (128 MiB/s), larger files in
 * truncations of {@value #DELETE_CHUNK_BYTES} bytes (4 MiB); a file waiting its turn is
 * renamed {@code *.trash}, and one left at a close is deleted at the next open.
 *
 * <h2>Lifecycle</h2>
 * Every operation holds the read side of {@code lifecycle}; {@link #close()} and
 * {@link #tryResume()}'s reopen take the write side, so native handles are never freed or
 * replaced under a running read or write. The RocksDB handles are therefore plain fields:
 * written only under the write side, read only under the read side. The handles,
 * {@code closed} and {@code reopenFailure} are marked {@code @GuardedBy("lifecycle")}
 * (either side), {@code nextSeq} {@code @GuardedBy("commitLock")}, {@code unresolved}
 * {@code @GuardedBy("published")}. Error Prone enforces the last two; for the read-write
 * lock the marks are documentation only (an unlocked read of
 * {@code db} added as a trial was not flagged by Error Prone 2.42). Code outside this class reaches the handles only
 * through {@link #underReadLock}/{@link #underWriteLock}, which hand it a {@link Rocks}.
 *
 * <h2>Health</h2>
 * {@link #isHealthy()} is false from a failed write (a commit, an override change, a dedupe
 * sweep, or a background error RocksDB reports through its listener) until a later write
 * succeeds. After a write error RocksDB refuses every write until it is resumed, and the
 * Java binding has no {@code DB::Resume}, so {@link #tryResume()} first probes with one
 * small synced write and, when that fails too, closes the database and opens it again
 * (opening replays the write-ahead log, as after a crash: every synced batch is kept).
 * A batch whose write failed was never acknowledged; it may still be found after the
 * reopen (its log record made it to disk), which is harmless, since its sequence number
 * and id were never reused.
 *
 * <p>Thread-safe.
 */
public final class HookStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HookStore.class);

    /**
     * Store format written to and checked against {@code meta/format}: 2 since the delivery
     * ledger. A format-1 store (no delivery column families) is upgraded at open: the
     * missing families are created empty and the format set to 2, so an older Sluice,
     * which would accept hooks without scheduling their deliveries, refuses it afterwards.
     */
    static final long FORMAT = 2;
    private static final long FORMAT_BEFORE_DELIVERY = 1;
    /** {@link Options#maxWalBytes()} by default: 1 GiB (see "The write-ahead log's bound"). */
    public static final long DEFAULT_MAX_WAL_BYTES = 1L << 30;
    /** The smallest bound {@link Options} takes: 1 MiB. */
    static final long MIN_MAX_WAL_BYTES = 1L << 20;
    /** How fast retired logs and table files are deleted (see "Deletions at a pace"): 128 MiB/s. */
    static final long DELETE_BYTES_PER_SECOND = 128L << 20;
    /** A file larger than this is deleted by truncations of this size (see "Deletions at a pace"): 4 MiB. */
    static final long DELETE_CHUNK_BYTES = 4L << 20;
    /**
     * Waiting files never bypass the pace: RocksDB deletes at once when they exceed this
     * share of the store's table files, and a young store is small beside a gigabyte of logs.
     */
    private static final double TRASH_RATIO_NEVER = 1e9;

    static final String CF_HOOKS = "hooks";
    static final String CF_HOOK_IDS = "hook_ids";
    static final String CF_DEDUPE = "dedupe";
    static final String CF_DEDUPE_EXPIRY = "dedupe_expiry";
    static final String CF_OVERRIDES = "overrides";
    static final String CF_AUDIT = "audit";
    static final String CF_META = "meta";
    private static final List<String> FAMILIES = List.of(
            CF_HOOKS, CF_HOOK_IDS, CF_DEDUPE, CF_DEDUPE_EXPIRY, CF_OVERRIDES, CF_AUDIT, CF_META,
            DeliveryLedger.CF_DELIVERIES, DeliveryLedger.CF_DUE, DeliveryLedger.CF_BY_DESTINATION,
            DeliveryLedger.CF_DESTINATIONS);

    /**
     * How the store is run.
     *
     * @param dedupeTtlMillis how long a committed dedupe key makes later copies duplicates ({@code dedupe.ttl_seconds})
     * @param wallClockMillis wall-clock epoch milliseconds, for ids, dedupe expiry and audit times
     */
    public record Options(long dedupeTtlMillis, LongSupplier wallClockMillis, long maxWalBytes) {

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

        /** The dedupe TTL and the wall clock given, the write-ahead log's default bound. */
        public Options(long dedupeTtlMillis, LongSupplier wallClockMillis) {
            this(dedupeTtlMillis, wallClockMillis, DEFAULT_MAX_WAL_BYTES);
        }

        public static Options defaults() {
            return new Options(DEFAULT_DEDUPE_TTL.toMillis(), System::currentTimeMillis);
        }

        public Options withDedupeTtl(Duration ttl) {
            return new Options(ttl.toMillis(), wallClockMillis, maxWalBytes);
        }

        public Options withWallClock(LongSupplier clock) {
            return new Options(dedupeTtlMillis, clock, maxWalBytes);
        }

        /** The write-ahead log's bound (see "The write-ahead log's bound" in {@link HookStore}). */
        public Options withMaxWalBytes(long bytes) {
            return new Options(dedupeTtlMillis, wallClockMillis, bytes);
        }
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

    private final Path dir;
    private final Options options;
    private final DBOptions dbOptions;
    private final FamilyOptions cfOptions;
    private final BloomFilter bloom;
    private final HealthListener listener;
    /** RocksDB's counters, tickers only (see "Counting fsyncs"); kept across a reopen, freed at close. */
    private final Statistics statistics;
    /** Deletes the database's retired files at a pace (see "Deletions at a pace"); freed after the database, at close. */
    private final SstFileManager files;
    /** Nanoseconds the group commits' log syncs took ({@link #syncLog}: one at a time). */
    private final AtomicLong commitSyncNanos = new AtomicLong();
    /** {@link #walSyncs()} as it was at {@link #close()}, when the statistics are freed. */
    private volatile long walSyncsAtClose;
    // the native handles: replaced by a reopen (under lifecycle's write lock), null while a reopen has failed
    @GuardedBy("lifecycle")
    private RocksDB db;
    @GuardedBy("lifecycle")
    private List<ColumnFamilyHandle> handles;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle hooks;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle hookIds;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle dedupe;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle dedupeExpiry;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle overridesFamily;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle auditFamily;
    @GuardedBy("lifecycle")
    private ColumnFamilyHandle meta;
    private final WriteOptions syncWrite;
    /** Commits whose (unsynced) write has returned, counted in {@link #syncLog}. */
    private final AtomicLong commitWrites = new AtomicLong();
    private final Object syncLock = new Object();
    @GuardedBy("syncLock")
    private long syncedUpTo;
    /** See {@link #setCommitClaims}; read once per commit, under the commit lock. */
    private volatile CommitClaims commitClaims;
    private final WriteOptions lazyWrite;
    /** Reads that use the memtables, the block cache and the filters only: Incomplete where a disk read would be needed. */
    private final ReadOptions memoryOnly;
    private final UuidV7 ids = new UuidV7();
    private final DeliveryLedger ledger = new DeliveryLedger(this);
    /** {@link #getForDelivery} reads served from memory, and read from RocksDB (see {@link #deliveryReads}). */
    private final LongAdder deliveryReadsFromMemory = new LongAdder();
    private final LongAdder deliveryReadsFromStore = new LongAdder();
    private static final UUID NO_ID = new UUID(0, 0);

    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ReentrantLock commitLock = new ReentrantLock();
    /** Next commit sequence number. */
    @GuardedBy("commitLock")
    private long nextSeq;
    /** Serialises the override store's writes (read, then write with its audit record) and the resume probe. */
    private final ReentrantLock overrideLock = new ReentrantLock();

    // sequence publication (see the class comment, "Commit protocol and ordering")
    /**
     * One commit's sequence numbers, from their assignment until its write is over. {@code last}
     * is set under the commit lock before the ticket is queued; {@code done} and {@code failed}
     * are read and written under the store's {@code published} monitor.
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
    private final ConcurrentHashMap<ByteKey, OpenKey> inFlight = new ConcurrentHashMap<>();
    /** Written under lifecycle's write lock, read under its read lock. */
    @GuardedBy("lifecycle")
    private boolean closed;
    /** Why the last reopen failed (the store then has no database), else null. Guarded like {@code closed}. */
    @GuardedBy("lifecycle")
    private String reopenFailure;
    /** False from a failed write until a write succeeds (see the class comment). */
    private volatile boolean healthy = true;
    private volatile boolean failWrites;
    /** Test seam (see {@link #onCommitWrite}); null in the server. */
    private volatile CommitWriteHook commitWriteHook;

    private HookStore(Path dir, Options options, DBOptions dbOptions, Statistics statistics, SstFileManager files,
                      FamilyOptions cfOptions,
                      BloomFilter bloom, HealthListener listener, RocksDB db, List<ColumnFamilyHandle> handles)
            throws RocksDBException {
        this.bloom = bloom;
        this.statistics = statistics;
        this.files = files;
        this.dir = dir;
        this.options = options;
        this.dbOptions = dbOptions;
        this.cfOptions = cfOptions;
        this.listener = listener;
        listener.store = this;
        this.syncWrite = new WriteOptions().setSync(true);
        this.lazyWrite = new WriteOptions();
        this.memoryOnly = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);
        // uncontended (nothing else can see this store yet); taken so the fields are only ever touched under their locks
        lifecycle.writeLock().lock();
        try {
            attach(db, handles);
            checkFormat();
            recoverSequence();
            ledger.rebuildCounts(db, family(DeliveryLedger.CF_BY_DESTINATION));
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @GuardedBy("lifecycle")
    private void attach(RocksDB db, List<ColumnFamilyHandle> handles) {
        this.db = db;
        this.handles = handles;
        this.hooks = handles.get(1);
        this.hookIds = handles.get(2);
        this.dedupe = handles.get(3);
        this.dedupeExpiry = handles.get(4);
        this.overridesFamily = handles.get(5);
        this.auditFamily = handles.get(6);
        this.meta = handles.get(7);
    }

    // ================================================================ open / close

    /** Opens (creating if needed) the store under {@code dir} with default options. */
    public static HookStore open(Path dir) {
        return open(dir, Options.defaults());
    }

    /**
     * Opens (creating if needed) the store under {@code dir}. Fails with a
     * {@link HookStoreException} naming the dir when it cannot be created or read, when
     * another process (or another open store in this one) holds it, or when it is not a
     * Sluice store of this format.
     */
    public static HookStore open(Path dir, Options options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new HookStoreException("cannot create the store's data dir " + dir + ": " + e, e);
        }
        if (!Files.isDirectory(dir) || !Files.isReadable(dir) || !Files.isWritable(dir)) {
            throw new HookStoreException("the store's data dir " + dir + " is not a readable and writable directory");
        }
        RocksDB.loadLibrary();
        HealthListener listener = new HealthListener();
        SstFileManager files;
        try {
            files = new SstFileManager(Env.getDefault(), null, DELETE_BYTES_PER_SECOND, TRASH_RATIO_NEVER, DELETE_CHUNK_BYTES);
        } catch (RocksDBException e) {
            freeOptions(null, null, null, null, null, listener);
            throw new HookStoreException("cannot open the store at " + dir + ": " + e.getMessage(), e);
        }
        Statistics statistics = new Statistics(EnumSet.allOf(HistogramType.class)); // tickers only
        // keep/max log file: RocksDB's info LOG (4 files of 16 MiB); the write-ahead log's bound is maxTotalWalSize
        DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setKeepLogFileNum(4).setMaxLogFileSize(16L << 20).setListeners(List.of(listener))
                .setStatistics(statistics)
                .setMaxTotalWalSize(options.maxWalBytes()) // see "The write-ahead log's bound"
                .setSstFileManager(files); // see "Deletions at a pace"
        // point lookups (dedupe checks, id lookups) skip SST files that cannot hold the key
        BloomFilter bloom = new BloomFilter(10);
        // LZ4, and memtable inserts with a hint where keys come in order (FamilyOptions)
        FamilyOptions cfOptions;
        try {
            cfOptions = FamilyOptions.create(bloom);
        } catch (RuntimeException e) {
            freeOptions(dbOptions, statistics, files, null, bloom, listener);
            throw e;
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db;
        try {
            db = RocksDB.open(dbOptions, dir.toString(), descriptors(cfOptions), handles);
        } catch (RocksDBException e) {
            freeOptions(dbOptions, statistics, files, cfOptions, bloom, listener);
            String msg = String.valueOf(e.getMessage());
            String hint = msg.contains("lock") || msg.contains("LOCK")
                    ? " (is another Sluice process, or another open store, using this data dir?)" : "";
            throw new HookStoreException("cannot open the store at " + dir + ": " + msg + hint, e);
        }
        try {
            return new HookStore(dir, options, dbOptions, statistics, files, cfOptions, bloom, listener, db, handles);
        } catch (RocksDBException | RuntimeException e) {
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            freeOptions(dbOptions, statistics, files, cfOptions, bloom, listener);
            if (e instanceof HookStoreException h) {
                throw h;
            }
            throw new HookStoreException("cannot read the store at " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Frees the native handles {@link #open} makes before the database, in one order for its
     * failure paths and {@link #close}; a handle not made yet is passed as null. The database
     * and its family handles are freed first, by the caller.
     */
    private static void freeOptions(DBOptions dbOptions, Statistics statistics, SstFileManager files,
            FamilyOptions cfOptions, BloomFilter bloom, HealthListener listener) {
        if (dbOptions != null) {
            dbOptions.close();
        }
        if (statistics != null) {
            statistics.close();
        }
        if (files != null) {
            files.close();
        }
        if (cfOptions != null) {
            cfOptions.close();
        }
        if (bloom != null) {
            bloom.close();
        }
        listener.close();
    }

    private static List<ColumnFamilyDescriptor> descriptors(FamilyOptions cfOptions) {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions.plain()));
        for (String name : FAMILIES) {
            descriptors.add(new ColumnFamilyDescriptor(Codec.utf8(name), cfOptions.of(name)));
        }
        return descriptors;
    }

    @GuardedBy("lifecycle")
    private void checkFormat() throws RocksDBException {
        byte[] key = Codec.utf8("format");
        byte[] stored = db.get(meta, key);
        if (stored == null || (stored.length == 8 && Codec.u64(stored) == FORMAT_BEFORE_DELIVERY)) {
            db.put(meta, syncWrite, key, Codec.u64(FORMAT)); // new, or upgraded: the delivery families were created empty
        } else if (stored.length != 8 || Codec.u64(stored) != FORMAT) {
            throw new HookStoreException("the store at " + dir + " has format " + Arrays.toString(stored)
                    + ", this version reads formats " + FORMAT_BEFORE_DELIVERY + " (upgraded at open) and " + FORMAT);
        }
    }

    /**
     * Sets {@code nextSeq} past the last stored hook. Caller holds lifecycle's write lock,
     * so no commit runs; the commit lock is taken all the same, as for every write of {@code nextSeq}.
     */
    @GuardedBy("lifecycle")
    private void recoverSequence() {
        commitLock.lock();
        try (RocksIterator it = db.newIterator(hooks)) {
            it.seekToLast();
            // max: after a reopen, numbers handed to failed batches stay consumed
            if (it.isValid()) {
                nextSeq = Math.max(nextSeq, Codec.u64(it.key()) + 1);
                ids.continueAfter(Codec.uuid(ByteBuffer.wrap(it.value(), 1, 16)));
            } else {
                nextSeq = Math.max(nextSeq, 1);
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

    /** The data dir this store was opened on. */
    public Path dir() {
        return dir;
    }

    /** How long a committed dedupe key is remembered, in milliseconds. */
    public long dedupeTtlMillis() {
        return options.dedupeTtlMillis();
    }

    /**
     * How many times RocksDB has synced its write-ahead log since this store was opened
     * ({@code sluice_store_wal_syncs_total}): the store's real fsyncs, fewer than its synced
     * commits when commits share a sync. After {@link #close()}, the count at the close.
     */
    public long walSyncs() {
        lifecycle.readLock().lock();
        try {
            return closed ? walSyncsAtClose : statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Seconds the group commits' log syncs have taken since this store was opened
     * ({@code sluice_store_commit_sync_seconds_total}), from the call into RocksDB to its
     * return, which includes getting a core back once the disk is done. The syncs run one at
     * a time, so this figure's rate is the share of time a commit's sync was in progress:
     * near 1, commits wait on syncs that run back to back. A failed sync is not counted.
     */
    public double commitSyncSeconds() {
        return commitSyncNanos.get() / 1e9;
    }

    /** True until {@link #close()} (readiness: {@code GET /readyz}). */
    public boolean isOpen() {
        lifecycle.readLock().lock();
        try {
            return !closed;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Closes the store after every running read and write has finished. Every commit
     * was already fsynced, so nothing acknowledged depends on this; it releases the
     * data dir's lock so the next process opens it at once. Idempotent.
     */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (db != null) { // null after a failed reopen
                    db.flushWal(true);
                }
            } catch (RocksDBException e) {
                // every acknowledged write was synced already; nothing is lost by skipping this
            }
            syncWrite.close();
            lazyWrite.close();
            memoryOnly.close();
            closeDatabase();
            walSyncsAtClose = statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
            freeOptions(dbOptions, statistics, files, cfOptions, bloom, listener);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** Frees the database's native handles; caller holds lifecycle's write lock. */
    @GuardedBy("lifecycle")
    private void closeDatabase() {
        if (db == null) {
            return;
        }
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
        db = null;
        handles = null;
    }

    // ================================================================ health and resume

    /**
     * False from a failed write until a write succeeds again (readiness: {@code GET /readyz},
     * and the gauge {@code sluice_store_healthy}). While false every commit is still tried,
     * and the first that succeeds makes the store healthy again.
     */
    public boolean isHealthy() {
        return healthy;
    }

    /**
     * Tries to bring a failing store back; does nothing on a healthy one. First one small
     * synced write (it succeeds when the failure has passed and RocksDB took no background
     * error); when that fails, the database is closed and opened again, which clears a
     * background error as {@code DB::Resume} would (the binding lacks it), and the probe is
     * repeated. Waits for running reads and writes; callers run it off the request path.
     *
     * @return whether the store is healthy now
     */
    public boolean tryResume() {
        if (healthy) {
            return true;
        }
        if (probe()) {
            return true;
        }
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return false;
            }
            closeDatabase();
            List<ColumnFamilyHandle> reopened = new ArrayList<>();
            try {
                attach(RocksDB.open(dbOptions, dir.toString(), descriptors(cfOptions), reopened), reopened);
                recoverSequence();
                ledger.rebuildCounts(db, family(DeliveryLedger.CF_BY_DESTINATION));
                reopenFailure = null;
            } catch (RocksDBException e) {
                reopened.forEach(ColumnFamilyHandle::close);
                reopenFailure = String.valueOf(e.getMessage());
                return false;
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
        return probe();
    }

    /** One small synced write to {@code meta}; on success the store is healthy again. */
    private boolean probe() {
        try {
            underWriteLock((rocks, sync) -> {
                rocks.db().put(rocks.meta(), sync, PROBE_KEY, Codec.u64(options.wallClockMillis().getAsLong()));
                return null;
            });
            return true;
        } catch (HookStoreException e) {
            return false;
        }
    }

    private static final byte[] PROBE_KEY = Codec.utf8("probe");

    /** Called back by RocksDB (on one of its own threads) when a flush, compaction or write fails. */
    private static final class HealthListener extends AbstractEventListener {
        volatile HookStore store;

        HealthListener() {
            super(EnabledEventCallback.ON_BACKGROUND_ERROR);
        }

        @Override
        public void onBackgroundError(BackgroundErrorReason reason, Status status) {
            HookStore s = store;
            if (s != null) {
                s.healthy = false;
            }
        }
    }

    /**
     * Test seam, package-private on purpose: while {@code true}, every write (commits,
     * override changes, dedupe sweeps, ledger writes, the resume probe) fails with a
     * {@link HookStoreException} before touching RocksDB, as a store that cannot write
     * would; reads are unaffected. Tests elsewhere reach it through the test-only
     * {@code org.sluice.edge.store.StoreFaults}; the server never calls it.
     */
    void failWrites(boolean fail) {
        this.failWrites = fail;
    }

    /**
     * Called by {@link #commit} around its fsynced write, on the committing thread, with the
     * batch's first sequence number. A test seam like {@link #failWrites}: a test holds one
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
    public List<CommitResult> commit(List<PendingHook> batch) {
        int n = batch.size();
        byte[][] dedupeKeys = new byte[n][];
        for (int i = 0; i < n; i++) {
            PendingHook h = batch.get(i);
            if (h.dedupeKey() != null) {
                dedupeKeys[i] = Codec.dedupeKey(h.tenant(), h.source(), h.dedupeKey());
            }
        }
        // encoding (the body copy, off-heap) happens before the lock; the id is filled in under it
        BatchRecords records = BatchRecords.encode(batch, NO_ID);
        CommitResult[] results = new CommitResult[n];
        write(() -> {
            try (WriteBatch wb = new WriteBatch()) {
                Assigned assigned = assign(batch, dedupeKeys, records, results, wb);
                writeAssigned(assigned, wb);
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
    private record Assigned(Ticket ticket, long waitFor, List<ByteKey> keys, List<Ticket> dependsOn,
                            List<DeliveryLedger.NewRow> scheduled, CommitClaims claims,
                            List<CommitClaims.Claimed> claimed) {}

    /**
     * Phase 1, under the commit lock and with no write: the dedupe checks (the database,
     * then the keys of writes still open), the numbers and ids, the batch built.
     */
    private Assigned assign(List<PendingHook> batch, byte[][] dedupeKeys, BatchRecords records, CommitResult[] results,
                            WriteBatch wb) throws RocksDBException {
        // the commit lock is taken here rather than through underCommitLock so that Error Prone sees it
        // held where nextSeq is used (it cannot know that a lambda handed to a helper runs at once)
        commitLock.lock();
        try {
            int n = batch.size();
            long now = options.wallClockMillis().getAsLong();
            long expiry = dedupeExpiry(now, options.dedupeTtlMillis());
            Map<ByteKey, String> firstInBatch = new HashMap<>();
            List<DeliveryLedger.NewRow> scheduled = new ArrayList<>();
            List<ByteKey> keys = new ArrayList<>();
            List<Ticket> dependsOn = new ArrayList<>();
            CommitClaims claims = commitClaims;
            List<CommitClaims.Claimed> claimed = new ArrayList<>();
            long firstSeq = nextSeq;
            Ticket ticket = null;
            try {
                for (int i = 0; i < n; i++) {
                    byte[] dk = dedupeKeys[i];
                    ByteKey key = dk == null ? null : new ByteKey(dk);
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
                        byte[] existing = db.get(dedupe, dk);
                        if (existing != null && Codec.dedupeValueExpiry(existing) > now) {
                            results[i] = CommitResult.duplicate(Codec.dedupeValueId(existing).toString());
                            continue;
                        }
                    }
                    if (ticket == null) {
                        ticket = new Ticket(firstSeq);
                    }
                    UUID id = ids.next(now);
                    ledger.schedule(wb, nextSeq, id, batch.get(i), now, claims, claimed, scheduled);
                    long seqNo = nextSeq++;
                    byte[] seq = Codec.u64(seqNo);
                    byte[] idBytes = Codec.uuid(id);
                    records.setId(i, id);
                    records.put(wb, hooks, seqNo, i);
                    wb.put(hookIds, idBytes, seq);
                    String idText = id.toString();
                    if (key != null) {
                        wb.put(dedupe, dk, Codec.dedupeValue(id, expiry));
                        wb.put(dedupeExpiry, Codec.expiryKey(expiry, dk), new byte[0]);
                        firstInBatch.put(key, idText);
                        keys.add(key);
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
                for (ByteKey key : keys) {
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
     * Phase 2, outside the commit lock: the fsynced write, which RocksDB may merge with other
     * commits' writes into one log write and one fsync. Whatever happens, the ticket is
     * resolved (durable or failed) and the keys leave {@code inFlight}, so that no later
     * commit or reader waits for it forever.
     */
    @GuardedBy("lifecycle")
    private void writeAssigned(Assigned assigned, WriteBatch wb) throws RocksDBException {
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
            db.write(lazyWrite, wb);
            if (hook != null) {
                hook.beforeSync(ticket.first);
            }
            syncLog();
            written = true;
            if (hook != null) {
                hook.afterWrite(ticket.first);
            }
        } finally {
            // the write is visible (or failed) before its keys leave: a later commit then finds them in the database
            for (ByteKey key : assigned.keys()) {
                inFlight.remove(key);
            }
            resolve(ticket, written);
            if (written) { // before the hand-over: a pass it wakes finds the rows above the scan floor
                ledger.scheduled(assigned.scheduled());
            }
            handOver(assigned.claims(), assigned.claimed(), assigned.scheduled().size() - assigned.claimed().size(), written);
        }
        healthy = true;
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
    @GuardedBy("lifecycle")
    private void syncLog() throws RocksDBException {
        long mine = commitWrites.incrementAndGet(); // this commit's write has returned
        synchronized (syncLock) {
            if (syncedUpTo >= mine) {
                return; // an fsync that began after this write returned covered it
            }
            long upTo = commitWrites.get(); // every write counted so far has returned: this fsync covers them
            long start = System.nanoTime();
            db.syncWal();
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
                    throw new HookStoreException("write to the store at " + dir
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

    // ================================================================ dedupe

    /**
     * The id of the hook committed with this (tenant, source, key) whose dedupe entry has
     * not expired at {@code nowMillis}, if any. A point read; never takes the commit lock.
     */
    public Optional<String> findDuplicate(String tenant, String source, String key, long nowMillis) {
        byte[] dk = Codec.dedupeKey(tenant, source, key);
        if (inFlight.containsKey(new ByteKey(dk))) {
            return Optional.empty(); // its write may not be durable yet: the commit's own check waits for it
        }
        return read(() -> Optional.ofNullable(originalIn(db.get(dedupe, dk), nowMillis)));
    }

    /** The hook id a dedupe entry's value names while it is live at {@code nowMillis}, or null (no entry, or expired). */
    private static String originalIn(byte[] dedupeValue, long nowMillis) {
        if (dedupeValue == null || Codec.dedupeValueExpiry(dedupeValue) <= nowMillis) {
            return null;
        }
        return Codec.dedupeValueId(dedupeValue).toString();
    }

    /**
     * {@link #findDuplicate}, answered from memory alone (the memtables, the block cache and
     * the bloom filters), for a caller that must not wait (an event loop):
     * {@link DuplicateLookup#NEEDS_DISK} when the answer would need a disk read, or when a
     * reopen holds the store, and then the caller asks {@link #findDuplicate}. A key never
     * seen, the common case, is answered by the filters without a read.
     */
    public DuplicateLookup findDuplicateInMemory(String tenant, String source, String key, long nowMillis) {
        byte[] dk = Codec.dedupeKey(tenant, source, key);
        if (inFlight.containsKey(new ByteKey(dk))) {
            return DuplicateLookup.NONE; // as findDuplicate: the commit's own check waits for that write
        }
        if (!lifecycle.readLock().tryLock()) {
            return DuplicateLookup.NEEDS_DISK; // a close or a reopen: findDuplicate waits for it, here nothing may
        }
        try {
            ensureOpen();
            byte[] v;
            try {
                v = db.get(dedupe, memoryOnly, dk);
            } catch (RocksDBException e) {
                if (e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete) {
                    return DuplicateLookup.NEEDS_DISK;
                }
                throw new HookStoreException("read from the store at " + dir + " failed: " + e.getMessage(), e);
            }
            String original = originalIn(v, nowMillis);
            return original == null ? DuplicateLookup.NONE : new DuplicateLookup(true, original);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Removes at most {@code maxEntries} dedupe entries that expired at or before
     * {@code nowMillis}, oldest expiry first, and returns how many expiry records it
     * processed (0: nothing left to sweep). An entry renewed by a later commit of the
     * same key is kept; only its stale expiry record goes. Not fsynced: a sweep lost in
     * a crash is simply redone.
     */
    public int sweepDedupe(int maxEntries, long nowMillis) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        return underLifecycle("dedupe sweep on", () -> {
            List<byte[]> due = new ArrayList<>();
            try (RocksIterator it = db.newIterator(dedupeExpiry)) {
                for (it.seekToFirst(); it.isValid() && due.size() < maxEntries; it.next()) {
                    byte[] k = it.key();
                    if (Codec.expiryKeyMillis(k) > nowMillis) {
                        break;
                    }
                    due.add(k);
                }
                it.status();
            }
            if (due.isEmpty()) {
                return 0;
            }
            writing(() -> underCommitLock(() -> {
                try (WriteBatch wb = new WriteBatch()) {
                    for (byte[] k : due) {
                        long expiry = Codec.expiryKeyMillis(k);
                        byte[] dk = Codec.expiryKeyDedupeKey(k);
                        // a key an open commit is renewing keeps its entry: that commit's put may land after this delete
                        byte[] current = inFlight.containsKey(new ByteKey(dk)) ? null : db.get(dedupe, dk);
                        if (current != null && Codec.dedupeValueExpiry(current) == expiry) {
                            wb.delete(dedupe, dk);
                        }
                        wb.delete(dedupeExpiry, k);
                    }
                    db.write(lazyWrite, wb); // not synced: a lost sweep is redone, so its success proves no health
                }
                return null;
            }));
            return due.size();
        });
    }

    // ================================================================ reading

    /** The committed hook with this id, or empty (also for a string that is not a UUID). */
    public Optional<StoredHook> get(String id) {
        UUID uuid = parseId(id);
        return uuid == null ? Optional.empty() : get(uuid);
    }

    private Optional<StoredHook> get(UUID uuid) {
        return read(() -> {
            long cached = ledger.cachedSeq(uuid); // the delivery path's hooks: skips the id index
            if (cached >= 0) {
                return hookAt(Codec.u64(cached));
            }
            byte[] seq = db.get(hookIds, Codec.uuid(uuid));
            return seq == null ? Optional.empty() : hookAt(seq);
        });
    }

    /** The hook stored under this sequence number key, if any; the caller holds {@link #read}'s lock. */
    private Optional<StoredHook> hookAt(byte[] seqKey) throws RocksDBException {
        byte[] value = db.get(hooks, seqKey);
        return value == null ? Optional.empty() : Optional.of(Codec.hook(value));
    }

    /**
     * Who may claim new deliveries as they are committed ({@link CommitClaims}), or null for
     * nobody (every delivery is written due at once). A dispatcher sets itself while it runs.
     */
    public void setCommitClaims(CommitClaims claims) {
        this.commitClaims = claims;
    }

    /**
     * The hook with this id for the dispatcher, which is about to send it: from memory when
     * its commit kept it there (recent hooks with pending deliveries, bounded, see
     * {@code SeqCache}), else as {@link #get}. Unlike {@link #get}, the body array may be the
     * one committed and shared with other readers of this method: callers must not modify it.
     */
    public Optional<StoredHook> getForDelivery(String id) {
        return getForDelivery(id, -1);
    }

    /**
     * How many of {@link #getForDelivery}'s reads found the hook in memory ({@code true}) or
     * read it from RocksDB ({@code false}), since the store opened
     * ({@code sluice_delivery_hook_reads_total{from="memory"|"store"}}).
     */
    public long deliveryReads(boolean fromMemory) {
        return (fromMemory ? deliveryReadsFromMemory : deliveryReadsFromStore).sum();
    }

    /**
     * As {@link #getForDelivery(String)}, for a hook whose commit sequence number the caller
     * has ({@code seq}, from {@link DeliveryLedger.Due#seqs()}; -1 when it has none): on a miss
     * of the memory, the hook is read at that number, without looking its id up.
     */
    public Optional<StoredHook> getForDelivery(String id, long seq) {
        UUID uuid = parseId(id);
        if (uuid == null) {
            return Optional.empty();
        }
        StoredHook kept = ledger.cachedHook(uuid, seq);
        if (kept != null) {
            deliveryReadsFromMemory.increment();
            return Optional.of(kept);
        }
        deliveryReadsFromStore.increment();
        if (seq < 0) {
            return get(uuid); // parsed once, also on a miss
        }
        return read(() -> hookAt(Codec.u64(seq)));
    }

    /**
     * As {@link #getForDelivery(String, long)} for many hooks at once, the rows of one due
     * scan ({@code ids.get(i)} committed as {@code seqs[i]}, -1 when unknown): those not in memory are read
     * with one iterator in commit order ({@link OrderedReads}) instead of a point read each,
     * which is what a backlog's reads are. Returns the hooks at the same indexes, null where
     * an id is malformed or its hook is gone.
     */
    public StoredHook[] getForDelivery(List<String> ids, long[] seqs) {
        if (seqs.length != ids.size()) {
            throw new IllegalArgumentException(seqs.length + " sequence numbers for " + ids.size() + " ids");
        }
        StoredHook[] found = new StoredHook[ids.size()];
        int[] misses = new int[ids.size()];
        int missed = 0;
        int hits = 0;
        for (int i = 0; i < found.length; i++) {
            UUID uuid = parseId(ids.get(i));
            if (uuid == null) {
                continue;
            }
            if (seqs[i] < 0) { // no number: by id, as the single read does
                found[i] = getForDelivery(ids.get(i), -1).orElse(null);
                continue;
            }
            found[i] = ledger.cachedHook(uuid, seqs[i]);
            if (found[i] == null) {
                misses[missed++] = i;
            } else {
                hits++;
            }
        }
        deliveryReadsFromMemory.add(hits);
        if (missed == 0) {
            return found;
        }
        deliveryReadsFromStore.add(missed);
        byte[][] keys = new byte[missed][];
        for (int m = 0; m < missed; m++) {
            keys[m] = Codec.u64(seqs[misses[m]]);
        }
        byte[][] values = read(() -> OrderedReads.read(db, hooks, keys, false)); // read once: kept out of the block cache
        for (int m = 0; m < missed; m++) {
            if (values[m] != null) {
                StoredHook h = Codec.hook(values[m]);
                if (h.id().equals(ids.get(misses[m]))) { // the number is the caller's word; the id is checked
                    found[misses[m]] = h;
                }
            }
        }
        return found;
    }

    /**
     * Up to {@code limit} hooks committed after the hook {@code afterId} (from the first
     * hook when null), in commit order. See the class comment for why paging with
     * {@link HookPage#next()} returns every hook exactly once.
     *
     * @throws IllegalArgumentException when {@code limit < 1} or no stored hook has id {@code afterId}
     */
    public HookPage after(String afterId, int limit) {
        return after(afterId, limit, DEFAULT_PAGE_BYTES);
    }

    /** Body bytes one page holds at most (it always holds at least one hook): 16 MiB. */
    public static final long DEFAULT_PAGE_BYTES = 16L << 20;

    /**
     * As {@link #after(String, int)}, but the page also ends once its bodies reach
     * {@code maxBytes} (a page always holds at least one hook), so that a page of big
     * bodies cannot exhaust the heap; {@link HookPage#next()} then points on.
     */
    public HookPage after(String afterId, int limit, long maxBytes) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return read(() -> {
            long visible = durableUpTo; // read before the iterator is made: every number up to it is in its view or never will be
            long fromSeq = 0;
            if (afterId != null) {
                UUID uuid = parseId(afterId);
                byte[] seq = uuid == null ? null : db.get(hookIds, Codec.uuid(uuid));
                if (seq == null) {
                    throw new IllegalArgumentException("after: no stored hook has id " + afterId);
                }
                fromSeq = Codec.u64(seq);
            }
            List<StoredHook> page = new ArrayList<>(Math.min(limit, 1024));
            boolean more;
            long bytes = 0;
            try (RocksIterator it = db.newIterator(hooks)) {
                for (it.seek(Codec.u64(fromSeq + 1)); visibleAt(it, visible) && page.size() < limit && bytes < maxBytes; it.next()) {
                    StoredHook h = Codec.hook(it.value());
                    page.add(h);
                    bytes += h.body().length;
                }
                it.status();
                more = visibleAt(it, visible);
            }
            String next = more && !page.isEmpty() ? page.get(page.size() - 1).id() : null;
            return new HookPage(page, next);
        });
    }

    /**
     * Whether the hooks iterator is on a hook a pager may return: one numbered at most
     * {@code visible}. A higher one is written, but a lower number may still be in a write
     * that is not over; returning it now would let that lower one be skipped by the next page.
     */
    private static boolean visibleAt(RocksIterator it, long visible) {
        return it.isValid() && Codec.u64(it.key()) <= visible;
    }

    // ================================================================ overrides (see RocksOverrideStore)

    /**
     * Runs {@code body} with the store open and the override lock held (writes of the override
     * store, the resume probe). Not the commit lock: these writes touch no hook, number or
     * dedupe key, so ingest does not wait for their fsync.
     */
    <T> T underWriteLock(RocksWork<T> body) {
        return write(() -> {
            overrideLock.lock();
            try {
                T result = body.run(rocks(), syncWrite);
                healthy = true;
                return result;
            } finally {
                overrideLock.unlock();
            }
        });
    }

    /** Runs {@code body} with the store open (reads of the override store). */
    <T> T underReadLock(RocksWork<T> body) {
        return read(() -> body.run(rocks(), null));
    }

    long wallClockMillis() {
        return options.wallClockMillis().getAsLong();
    }

    /**
     * The open database and the column families the override store (and the health probe)
     * use, handed to a {@link RocksWork} body: valid only while the body runs, under the lock
     * that {@link #underReadLock}/{@link #underWriteLock} hold for it.
     */
    record Rocks(RocksDB db, ColumnFamilyHandle overrides, ColumnFamilyHandle audit, ColumnFamilyHandle meta) {}

    @GuardedBy("lifecycle")
    private Rocks rocks() {
        return new Rocks(db, overridesFamily, auditFamily, meta);
    }

    // ================================================================ delivery ledger (see DeliveryLedger)

    /** The delivery state of the hooks in this store. */
    public DeliveryLedger deliveries() {
        return ledger;
    }

    /** A column family by name; caller holds the lifecycle lock (either side) or is opening. */
    @GuardedBy("lifecycle")
    ColumnFamilyHandle family(String name) {
        int i = FAMILIES.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no column family " + name);
        }
        return handles.get(i + 1);
    }

    /**
     * Runs a ledger write with the store open but WITHOUT the commit lock (delivery work
     * must not block ingest); the ledger serialises its own writes. {@code sync} picks the
     * fsynced or the plain write options; only a synced success makes the store healthy.
     */
    <T> T ledgerWrite(boolean sync, RocksWork<T> body) {
        return write(() -> {
            T result = body.run(rocks(), sync ? syncWrite : lazyWrite);
            if (sync) {
                healthy = true;
            }
            return result;
        });
    }

    /**
     * The store's approximate size in bytes ({@code sluice_store_bytes}, for
     * {@code store.max_bytes}): SST files of every column family (including files a
     * compaction has made obsolete but not yet deleted) plus the memtables. The write-ahead
     * log is not counted. RocksDB properties: cheap, no I/O.
     */
    public long approximateBytes() {
        return underReadLock((rocks, unused) -> rocks.db().getAggregatedLongProperty("rocksdb.total-sst-files-size")
                + rocks.db().getAggregatedLongProperty("rocksdb.size-all-mem-tables"));
    }

    /**
     * Gives the space of deleted rows back, so that {@link #approximateBytes()} falls after
     * retention has deleted hooks: flushes the memtables (where the deletions sit as
     * tombstones, and which never shrink in place) and compacts the column families that
     * retention and the dedupe sweep delete from, which drops the deleted rows with their
     * tombstones from the SST files. Slow (it rewrites the surviving rows of those families)
     * and blocking: for a background thread only, and only when the size matters (the
     * store is at {@code store.max_bytes}). Takes the lifecycle read lock, not the commit lock,
     * so ingest goes on meanwhile.
     */
    public void reclaim() {
        underReadLock((rocks, unused) -> {
            List<ColumnFamilyHandle> families = List.of(family(CF_HOOKS), family(CF_HOOK_IDS), family(CF_DEDUPE),
                    family(CF_DEDUPE_EXPIRY), family(DeliveryLedger.CF_DELIVERIES),
                    family(DeliveryLedger.CF_BY_DESTINATION), family(DeliveryLedger.CF_DUE));
            try (org.rocksdb.FlushOptions flush = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
                rocks.db().flush(flush, families);
            }
            for (ColumnFamilyHandle family : families) {
                rocks.db().compactRange(family);
            }
            return null;
        });
    }

    @FunctionalInterface
    interface RocksWork<T> {
        T run(Rocks rocks, WriteOptions sync) throws RocksDBException;
    }

    // ================================================================ locking and failure translation

    /*
     * Every read and write goes through the helpers below, so each rule of the class comment
     * is written once:
     *   underLifecycle       lifecycle's read lock, the store open, and a RocksDBException turned
     *                        into a HookStoreException "<action> the store at <dir> failed: <reason>"
     *   writing              the write rules: the test fault first, and a RocksDB failure marks the
     *                        store unhealthy (each caller says when a success makes it healthy again)
     *   underCommitLock      the commit lock, for the dedupe sweep (commit() takes it itself)
     *   read, write          the usual combinations: a read; a write (the ledger's, the override
     *                        store's under its own lock, without the commit lock)
     * commit() and sweepDedupe() combine them by hand (see there).
     */

    /** A body run by the helpers below, with the locks they hold. */
    @FunctionalInterface
    private interface Work<T> {
        T run() throws RocksDBException;
    }

    private <T> T read(Work<T> body) {
        return underLifecycle("read from", body);
    }

    private <T> T write(Work<T> body) {
        return underLifecycle("write to", () -> writing(body));
    }

    private <T> T underLifecycle(String action, Work<T> body) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            return body.run();
        } catch (RocksDBException e) {
            throw new HookStoreException(action + " the store at " + dir + " failed: " + e.getMessage(), e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    private <T> T underCommitLock(Work<T> body) throws RocksDBException {
        commitLock.lock();
        try {
            return body.run();
        } finally {
            commitLock.unlock();
        }
    }

    /** Caller holds lifecycle's read lock. */
    private <T> T writing(Work<T> body) throws RocksDBException {
        if (failWrites) {
            healthy = false;
            throw new HookStoreException("write to the store at " + dir + " failed: injected failure (failWrites)");
        }
        try {
            return body.run();
        } catch (RocksDBException e) {
            healthy = false;
            throw e;
        }
    }

    // ================================================================ helpers

    @GuardedBy("lifecycle")
    private void ensureOpen() {
        if (closed) {
            throw new HookStoreException("the store at " + dir + " is closed");
        }
        if (db == null) {
            throw new HookStoreException("the store at " + dir + " could not be reopened after a write failure: "
                    + reopenFailure);
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

    /** A byte array compared by content, for the in-batch dedupe map. */
    @SuppressWarnings("ArrayRecordComponent") // equals and hashCode below compare the array's content
    private record ByteKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    @Override
    public String toString() {
        return "HookStore[" + dir + "]";
    }
}

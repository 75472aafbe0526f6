package org.sluice.edge.store.rocks;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
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
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;
import org.sluice.edge.store.HookStoreException;

/**
 * The RocksDB database under a {@link RocksHookStore}: opening it, its native handles and
 * their lifecycle, its health and resume, and the helpers every read and write goes through.
 * Knows nothing of hooks, dedupe keys or deliveries beyond the names of their families.
 *
 * <h2>Lifecycle</h2>
 * Every operation holds the read side of {@code lifecycle}; {@link #close()} and
 * {@link #tryResume}'s reopen take the write side, so native handles are never freed or
 * replaced under a running read or write. The RocksDB handles are therefore plain fields:
 * written only under the write side, read only under the read side. The handles,
 * {@code closed} and {@code reopenFailure} are marked {@code @GuardedBy("lifecycle")}
 * (either side); for the read-write lock the marks are documentation only (an unlocked read
 * of {@code db} added as a trial was not flagged by Error Prone 2.42). Code outside this
 * class reaches the handles only through {@link #read}, {@link #write},
 * {@link #underLifecycle} and {@link #controlWrite}, which hand its body a
 * {@link RocksFamilies}.
 *
 * <h2>Health</h2>
 * {@link #isHealthy()} is false from a failed write (a commit, an override change, a dedupe
 * sweep, or a background error RocksDB reports through its listener) until a later write
 * succeeds. After a write error RocksDB refuses every write until it is resumed, and the
 * Java binding has no {@code DB::Resume}, so {@link #tryResume} first probes with one
 * small synced write and, when that fails too, closes the database and opens it again
 * (opening replays the write-ahead log, as after a crash: every synced batch is kept).
 * A batch whose write failed was never acknowledged; it may still be found after the
 * reopen (its log record made it to disk), which is harmless, since its sequence number
 * and id were never reused.
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
 * memtables together (about 6 GiB here). {@link RocksHookStore.Options#maxWalBytes()}
 * (default {@value RocksHookStore#DEFAULT_MAX_WAL_BYTES} bytes, 1 GiB) is RocksDB's
 * {@code max_total_wal_size}: past it, the next write has the families that hold the
 * oldest log flushed, and the log is deleted once they are. The logs on disk then stay
 * under that figure plus what is written while those flushes run, and a restart replays
 * no more than that.
 *
 * <p><b>Deletions at a pace.</b> Such a flush retires many logs at once, and a compaction
 * many table files. Unlinking a gigabyte at once held the disk's syncs for tens of
 * milliseconds (this project's disk is mounted with online discard), and every commit waits
 * for a sync. So the store's files are deleted through RocksDB's {@code SstFileManager}
 * at {@value #DELETE_BYTES_PER_SECOND} bytes a second (128 MiB/s), larger files in
 * truncations of {@value #DELETE_CHUNK_BYTES} bytes (4 MiB); a file waiting its turn is
 * renamed {@code *.trash}, and one left at a close is deleted at the next open.
 *
 * <p>Thread-safe.
 */
final class RocksDatabase {

    /**
     * Store format written to and checked against {@code meta/format}: 2 since the delivery
     * ledger. A format-1 store (no delivery column families) is upgraded at open: the
     * missing families are created empty and the format set to 2, so an older Sluice,
     * which would accept hooks without scheduling their deliveries, refuses it afterwards.
     */
    static final long FORMAT = 2;
    private static final long FORMAT_BEFORE_DELIVERY = 1;
    /** How fast retired logs and table files are deleted (see "Deletions at a pace"): 128 MiB/s. */
    static final long DELETE_BYTES_PER_SECOND = 128L << 20;
    /** A file larger than this is deleted by truncations of this size (see "Deletions at a pace"): 4 MiB. */
    static final long DELETE_CHUNK_BYTES = 4L << 20;
    /**
     * Waiting files never bypass the pace: RocksDB deletes at once when they exceed this
     * share of the store's table files, and a young store is small beside a gigabyte of logs.
     */
    private static final double TRASH_RATIO_NEVER = 1e9;
    private static final byte[] PROBE_KEY = Codec.utf8("probe");

    /** What a store does with each newly opened database (at open, and after a reopen), with no other work running. */
    @FunctionalInterface
    interface OnOpen {
        void opened(RocksFamilies families) throws RocksDBException;
    }

    /** A body run with the database open, under the locks of the helper that runs it. */
    @FunctionalInterface
    interface Work<T> {
        T run(RocksFamilies families) throws RocksDBException;
    }

    /** A body run by {@link #writing}, inside a body that already has the families. */
    @FunctionalInterface
    interface Action<T> {
        T run() throws RocksDBException;
    }

    private final Path dir;
    private final LongSupplier wallClockMillis;
    private final DBOptions dbOptions;
    private final FamilyOptions cfOptions;
    private final BloomFilter bloom;
    private final HealthListener listener;
    /** RocksDB's counters, tickers only (see "Counting fsyncs"); kept across a reopen, freed at close. */
    private final Statistics statistics;
    /** Deletes the database's retired files at a pace (see "Deletions at a pace"); freed after the database, at close. */
    private final SstFileManager files;
    /** {@link #walSyncs()} as it was at {@link #close()}, when the statistics are freed. */
    private volatile long walSyncsAtClose;
    private final WriteOptions syncWrite = new WriteOptions().setSync(true);
    private final WriteOptions lazyWrite = new WriteOptions();
    /** Reads that use the memtables, the block cache and the filters only: Incomplete where a disk read would be needed. */
    private final ReadOptions memoryOnly = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);

    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    /** Serialises the control state's writes (read, then write with its audit record) and the resume probe. */
    private final ReentrantLock controlLock = new ReentrantLock();
    // the native handles: replaced by a reopen (under lifecycle's write lock), null while a reopen has failed
    @GuardedBy("lifecycle")
    private RocksDB db;
    @GuardedBy("lifecycle")
    private List<ColumnFamilyHandle> handles;
    @GuardedBy("lifecycle")
    private RocksFamilies families;
    /** Written under lifecycle's write lock, read under its read lock. */
    @GuardedBy("lifecycle")
    private boolean closed;
    /** Why the last reopen failed (the store then has no database), else null. */
    @GuardedBy("lifecycle")
    private String reopenFailure;
    /** Run on each newly opened database; set once by {@link #start}. */
    private volatile OnOpen onOpen;
    /** False from a failed write until a write succeeds (see "Health"). */
    private volatile boolean healthy = true;
    private volatile boolean failWrites;

    private RocksDatabase(Path dir, LongSupplier wallClockMillis, DBOptions dbOptions, Statistics statistics,
                          SstFileManager files, FamilyOptions cfOptions, BloomFilter bloom, HealthListener listener,
                          RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException {
        this.dir = dir;
        this.wallClockMillis = wallClockMillis;
        this.bloom = bloom;
        this.statistics = statistics;
        this.files = files;
        this.dbOptions = dbOptions;
        this.cfOptions = cfOptions;
        this.listener = listener;
        listener.database = this;
        // uncontended (nothing else can see this database yet); taken so the fields are only ever touched under their locks
        lifecycle.writeLock().lock();
        try {
            attach(db, handles);
            checkFormat();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @GuardedBy("lifecycle")
    private void attach(RocksDB db, List<ColumnFamilyHandle> handles) {
        this.db = db;
        this.handles = handles;
        this.families = RocksFamilies.of(db, handles, syncWrite, lazyWrite, memoryOnly);
    }

    // ================================================================ open / close

    /**
     * Opens (creating if needed) the database under {@code dir}. Fails with a
     * {@link HookStoreException} naming the dir when it cannot be created or read, when
     * another process (or another open store in this one) holds it, or when it is not a
     * Sluice store of this format.
     */
    static RocksDatabase open(Path dir, long maxWalBytes, LongSupplier wallClockMillis) {
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
                .setMaxTotalWalSize(maxWalBytes) // see "The write-ahead log's bound"
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
            return new RocksDatabase(dir, wallClockMillis, dbOptions, statistics, files, cfOptions, bloom, listener, db,
                    handles);
        } catch (RocksDBException | RuntimeException e) {
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            freeOptions(dbOptions, statistics, files, cfOptions, bloom, listener);
            throw readFailure(dir, e);
        }
    }

    /**
     * Runs {@code onOpen} on the database just opened, and again after every reopen. When
     * it fails the database is closed and the failure thrown as a {@link HookStoreException}.
     */
    void start(OnOpen onOpen) {
        this.onOpen = onOpen;
        HookStoreException failure = null;
        lifecycle.writeLock().lock();
        try {
            onOpen.opened(families);
        } catch (RocksDBException | RuntimeException e) {
            failure = readFailure(dir, e);
        } finally {
            lifecycle.writeLock().unlock();
        }
        if (failure != null) {
            close();
            throw failure;
        }
    }

    private static HookStoreException readFailure(Path dir, Exception e) {
        if (e instanceof HookStoreException h) {
            return h;
        }
        return new HookStoreException("cannot read the store at " + dir + ": " + e.getMessage(), e);
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
        for (String name : RocksFamilies.NAMES) {
            descriptors.add(new ColumnFamilyDescriptor(Codec.utf8(name), cfOptions.of(name)));
        }
        return descriptors;
    }

    @GuardedBy("lifecycle")
    private void checkFormat() throws RocksDBException {
        byte[] key = Codec.utf8("format");
        byte[] stored = db.get(families.meta(), key);
        if (stored == null || (stored.length == 8 && Codec.u64(stored) == FORMAT_BEFORE_DELIVERY)) {
            db.put(families.meta(), syncWrite, key, Codec.u64(FORMAT)); // new, or upgraded: the delivery families were created empty
        } else if (stored.length != 8 || Codec.u64(stored) != FORMAT) {
            throw new HookStoreException("the store at " + dir + " has format " + Arrays.toString(stored)
                    + ", this version reads formats " + FORMAT_BEFORE_DELIVERY + " (upgraded at open) and " + FORMAT);
        }
    }

    /** The data dir this database was opened on. */
    Path dir() {
        return dir;
    }

    long wallClockMillis() {
        return wallClockMillis.getAsLong();
    }

    /**
     * How many times RocksDB has synced its write-ahead log since this database was opened
     * ({@code sluice_store_wal_syncs_total}). After {@link #close()}, the count at the close.
     */
    long walSyncs() {
        lifecycle.readLock().lock();
        try {
            return closed ? walSyncsAtClose : statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** True until {@link #close()}. */
    boolean isOpen() {
        lifecycle.readLock().lock();
        try {
            return !closed;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Closes the database after every running read and write has finished. Idempotent. */
    void close() {
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
        families = null;
    }

    // ================================================================ health and resume

    /** False from a failed write until a write succeeds again (see "Health"). */
    boolean isHealthy() {
        return healthy;
    }

    /** A write that proves the database writes again (a synced one) succeeded. */
    void markHealthy() {
        healthy = true;
    }

    /**
     * Tries to bring a failing database back; does nothing on a healthy one (see "Health").
     * Waits for running reads and writes; callers run it off the request path.
     *
     * @return whether the database is healthy now
     */
    boolean tryResume() {
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
                onOpen.opened(families);
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

    /** One small synced write to {@code meta}; on success the database is healthy again. */
    private boolean probe() {
        try {
            controlWrite(f -> {
                f.db().put(f.meta(), f.syncWrite(), PROBE_KEY, Codec.u64(wallClockMillis.getAsLong()));
                return null;
            });
            return true;
        } catch (HookStoreException e) {
            return false;
        }
    }

    /** Called back by RocksDB (on one of its own threads) when a flush, compaction or write fails. */
    private static final class HealthListener extends AbstractEventListener {
        volatile RocksDatabase database;

        HealthListener() {
            super(EnabledEventCallback.ON_BACKGROUND_ERROR);
        }

        @Override
        public void onBackgroundError(BackgroundErrorReason reason, Status status) {
            RocksDatabase d = database;
            if (d != null) {
                d.healthy = false;
            }
        }
    }

    /**
     * Test seam: while {@code true}, every write (commits, override changes, dedupe sweeps,
     * ledger writes, the resume probe) fails with a {@link HookStoreException} before
     * touching RocksDB, as a store that cannot write would; reads are unaffected.
     */
    void failWrites(boolean fail) {
        this.failWrites = fail;
    }

    // ================================================================ locking and failure translation

    /*
     * Every read and write goes through the helpers below, so each rule is written once:
     *   underLifecycle   lifecycle's read lock, the database open, and a RocksDBException turned
     *                    into a HookStoreException "<action> the store at <dir> failed: <reason>"
     *   writing          the write rules: the test fault first, and a RocksDB failure marks the
     *                    database unhealthy (each caller says when a success makes it healthy again)
     *   read, write      the usual combinations: a read; a write (the ledger's, without any other lock)
     *   controlWrite     a synced write under the control lock, which a success makes healthy
     *   tryRead          a read that does not wait for a close or a reopen
     * The group commit and the dedupe sweep combine them by hand.
     */

    <T> T read(Work<T> body) {
        return underLifecycle("read from", body);
    }

    <T> T write(Work<T> body) {
        return underLifecycle("write to", f -> writing(() -> body.run(f)));
    }

    /**
     * Runs {@code body} with the database open and the control lock held (the control state's
     * writes, the resume probe). Not the commit lock: these writes touch no hook, number or
     * dedupe key, so ingest does not wait for their fsync. A success makes the database healthy.
     */
    <T> T controlWrite(Work<T> body) {
        return write(f -> {
            controlLock.lock();
            try {
                T result = body.run(f);
                healthy = true;
                return result;
            } finally {
                controlLock.unlock();
            }
        });
    }

    <T> T underLifecycle(String action, Work<T> body) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            return body.run(families);
        } catch (RocksDBException e) {
            throw new HookStoreException(action + " the store at " + dir + " failed: " + e.getMessage(), e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * As {@link #read}, but without waiting: {@code busy} when a close or a reopen holds the
     * database. A {@link RocksDBException} of the body is thrown as it is, for the caller to sort.
     */
    <T> T tryRead(T busy, Work<T> body) throws RocksDBException {
        if (!lifecycle.readLock().tryLock()) {
            return busy;
        }
        try {
            ensureOpen();
            return body.run(families);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** The write rules; the caller holds lifecycle's read lock. */
    <T> T writing(Action<T> body) throws RocksDBException {
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
}

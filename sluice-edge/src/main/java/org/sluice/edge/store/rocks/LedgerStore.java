package org.sluice.edge.store.rocks;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The delivery ledger's narrow handle on the database it shares with the hooks: its own
 * column families (and the two hook families it reads and retention deletes from, and
 * {@code meta}, where retention keeps the {@link SequenceFloor}), the
 * lifecycle read lock its reads and writes run under, its writes, and the store's
 * durable-up-to number. Nothing else of {@link RocksHookStore}: no commit lock, no dedupe,
 * no overrides.
 */
interface LedgerStore {

    /** Runs {@code body} with the store open (the lifecycle read lock held); {@code options} is null. */
    <T> T read(LedgerWork<T> body);

    /**
     * Runs a ledger write with the store open but WITHOUT the commit lock (delivery work
     * must not block ingest); the ledger serialises its own writes. {@code sync} picks the
     * fsynced or the plain write options handed to {@code body}; only a synced success makes
     * the store healthy. A failure marks the store unhealthy.
     */
    <T> T write(boolean sync, LedgerWork<T> body);

    /**
     * The highest commit sequence number below which (inclusive) every number is durable or
     * failed. Read BEFORE making an iterator that walks hooks in commit order, and stop at
     * the first number above it (see {@link GroupCommit}).
     */
    long durableUpTo();

    /** A body run by {@link #read} or {@link #write}, valid only while it runs. */
    @FunctionalInterface
    interface LedgerWork<T> {
        T run(LedgerFamilies families, WriteOptions options) throws RocksDBException;
    }

    /** The open database and the families the ledger uses; valid only under the lock that hands them out. */
    record LedgerFamilies(RocksDB db, ColumnFamilyHandle hooks, ColumnFamilyHandle hookIds, ColumnFamilyHandle deliveries,
                          ColumnFamilyHandle due, ColumnFamilyHandle byDestination, ColumnFamilyHandle destinations,
                          ColumnFamilyHandle meta) {
    }
}

package org.sluice.edge.store.rocks;

import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;
import org.sluice.edge.store.rocks.LedgerStore.LedgerFamilies;

/**
 * The open database, its column families and the read and write options the store uses,
 * as {@link RocksDatabase} hands them to a body it runs: valid only while that body runs,
 * under the lifecycle lock it holds (a reopen replaces every handle).
 *
 * @param syncWrite  fsynced writes (operator actions, the resume probe)
 * @param lazyWrite  writes without fsync (commits, which sync the log themselves, and the ledger)
 * @param memoryOnly reads from the memtables, the block cache and the filters only
 */
record RocksFamilies(RocksDB db, ColumnFamilyHandle hooks, ColumnFamilyHandle hookIds, ColumnFamilyHandle dedupe,
                     ColumnFamilyHandle dedupeExpiry, ColumnFamilyHandle overrides, ColumnFamilyHandle audit,
                     ColumnFamilyHandle meta, ColumnFamilyHandle deliveries, ColumnFamilyHandle due,
                     ColumnFamilyHandle byDestination, ColumnFamilyHandle destinations,
                     WriteOptions syncWrite, WriteOptions lazyWrite, ReadOptions memoryOnly) {

    static final String CF_HOOKS = "hooks";
    static final String CF_HOOK_IDS = "hook_ids";
    static final String CF_DEDUPE = "dedupe";
    static final String CF_DEDUPE_EXPIRY = "dedupe_expiry";
    static final String CF_OVERRIDES = "overrides";
    static final String CF_AUDIT = "audit";
    static final String CF_META = "meta";
    static final String CF_DELIVERIES = "deliveries";
    static final String CF_DUE = "delivery_due";
    static final String CF_BY_DESTINATION = "delivery_by_destination";
    static final String CF_DESTINATIONS = "destinations";

    /** Every family after RocksDB's default one, in the order of the handles {@link #of} reads. */
    static final List<String> NAMES = List.of(
            CF_HOOKS, CF_HOOK_IDS, CF_DEDUPE, CF_DEDUPE_EXPIRY, CF_OVERRIDES, CF_AUDIT, CF_META,
            CF_DELIVERIES, CF_DUE, CF_BY_DESTINATION, CF_DESTINATIONS);

    /** The families of {@code handles}, opened with the default family first and then {@link #NAMES}. */
    static RocksFamilies of(RocksDB db, List<ColumnFamilyHandle> handles, WriteOptions syncWrite, WriteOptions lazyWrite,
                            ReadOptions memoryOnly) {
        return new RocksFamilies(db, handles.get(1), handles.get(2), handles.get(3), handles.get(4), handles.get(5),
                handles.get(6), handles.get(7), handles.get(8), handles.get(9), handles.get(10), handles.get(11),
                syncWrite, lazyWrite, memoryOnly);
    }

    /** The families the delivery ledger uses. */
    LedgerFamilies ledger() {
        return new LedgerFamilies(db, hooks, hookIds, deliveries, due, byDestination, destinations, meta);
    }

    /**
     * The families retention and the dedupe sweep delete from, which a reclaim flushes and
     * compacts, and {@code meta}, where retention writes its {@link SequenceFloor}: unflushed,
     * those writes would keep a memtable block in the store's size.
     */
    List<ColumnFamilyHandle> deletedFrom() {
        return List.of(hooks, hookIds, dedupe, dedupeExpiry, deliveries, byDestination, due, meta);
    }
}

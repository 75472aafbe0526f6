package org.sluice.edge.store.rocks;

import java.util.Properties;
import java.util.Set;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.sluice.edge.store.HookStoreException;

/**
 * The options of the store's column families, in two sets: one for the families whose keys
 * are written mostly in increasing order, one for the rest.
 *
 * <p>Both use block-based tables with the store's bloom filter and LZ4 (docs/storage.md,
 * "Compression"). The families in {@link #IN_ORDER} also insert into their memtables with a
 * hint: RocksDB keeps, per key prefix, where the last insert went in the memtable's skip
 * list, and starts the next insert of that prefix there instead of at the list's head. A
 * key that lands next to the previous one is placed in a few steps; one that does not costs
 * about what an insert without a hint costs. The keys of these families are a commit
 * number, a UUIDv7 hook id, an expiry time, or a destination's index ordered by commit
 * number or due time, so an ingest's or a dispatcher pass's writes mostly land right after
 * the ones before them (docs/storage.md, "Memtable inserts in order"). The prefix is the
 * key's first byte: every key of such a family shares one hint.
 *
 * <p>Not thread-safe; made once per store, closed with it.
 */
final class FamilyOptions implements AutoCloseable {

    /** The families whose keys are mostly written in increasing order. */
    static final Set<String> IN_ORDER = Set.of(RocksFamilies.CF_HOOKS, RocksFamilies.CF_HOOK_IDS,
            RocksFamilies.CF_DEDUPE_EXPIRY, RocksFamilies.CF_DELIVERIES, RocksFamilies.CF_DUE,
            RocksFamilies.CF_BY_DESTINATION);

    /** RocksDB's name for the prefix extractor that takes a key's first byte. */
    static final String HINT_PREFIX = "rocksdb.FixedPrefix.1";

    private final ColumnFamilyOptions plain;
    private final ColumnFamilyOptions inOrder;

    private FamilyOptions(ColumnFamilyOptions plain, ColumnFamilyOptions inOrder) {
        this.plain = plain;
        this.inOrder = inOrder;
    }

    static FamilyOptions create(BloomFilter bloom) {
        ColumnFamilyOptions plain = tables(new ColumnFamilyOptions(), bloom);
        Properties hint = new Properties();
        hint.setProperty("memtable_insert_with_hint_prefix_extractor", HINT_PREFIX);
        ColumnFamilyOptions inOrder;
        try (ConfigOptions config = new ConfigOptions()) {
            inOrder = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, hint);
        }
        if (inOrder == null) {
            plain.close();
            throw new HookStoreException("RocksDB refused the column family option"
                    + " memtable_insert_with_hint_prefix_extractor=" + HINT_PREFIX);
        }
        return new FamilyOptions(plain, tables(inOrder, bloom));
    }

    private static ColumnFamilyOptions tables(ColumnFamilyOptions options, BloomFilter bloom) {
        return options.setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(bloom))
                .setCompressionType(CompressionType.LZ4_COMPRESSION);
    }

    /** The options of the family called {@code name}. */
    ColumnFamilyOptions of(String name) {
        return IN_ORDER.contains(name) ? inOrder : plain;
    }

    /** The options of the default family (which the store does not use). */
    ColumnFamilyOptions plain() {
        return plain;
    }

    @Override
    public void close() {
        plain.close();
        inOrder.close();
    }
}

package org.sluice.edge.admin;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.sluice.core.Limit;
import org.sluice.core.OverrideStore;
import org.sluice.core.OverrideStoreException;
import org.sluice.edge.store.AuditRecord;

/**
 * An override store with its audit trail in this JVM's memory: nothing survives a
 * restart. For tests and embedders; the server uses the RocksDB store. The trail keeps
 * the newest {@link #MAX_RECORDS} records. Thread-safe.
 *
 * <p>{@link #failWrites(boolean)} makes every {@code put} and {@code delete} throw
 * {@link OverrideStoreException} before changing anything, like a store that cannot write.
 */
public final class InMemoryAuditedStore implements OverrideStore, AuditTrail {

    /** Records kept; older ones are dropped. */
    public static final int MAX_RECORDS = 10_000;

    private static final ThreadLocal<String> ACTOR = new ThreadLocal<>();

    private final Map<String, Limit> overrides = new ConcurrentHashMap<>();
    private final ArrayDeque<AuditRecord> records = new ArrayDeque<>();
    private final LongSupplier wallClockMillis;
    private volatile boolean failWrites;

    public InMemoryAuditedStore(LongSupplier wallClockMillis) {
        this.wallClockMillis = Objects.requireNonNull(wallClockMillis, "wallClockMillis");
    }

    /** While true, writes throw {@link OverrideStoreException} and change nothing. */
    public void failWrites(boolean fail) {
        this.failWrites = fail;
    }

    @Override
    public Map<String, Limit> load() {
        return Map.copyOf(overrides);
    }

    @Override
    public synchronized void put(String tenant, Limit limit) {
        checkWritable();
        Limit before = overrides.put(Objects.requireNonNull(tenant, "tenant"), Objects.requireNonNull(limit, "limit"));
        record(new AuditRecord(wallClockMillis.getAsLong(), actor(), AuditRecord.PUT, tenant, map(before), limit.toMap()));
    }

    @Override
    public synchronized boolean delete(String tenant) {
        checkWritable();
        Limit before = overrides.remove(tenant);
        if (before == null) {
            return false;
        }
        record(new AuditRecord(wallClockMillis.getAsLong(), actor(), AuditRecord.DELETE, tenant, before.toMap(), null));
        return true;
    }

    @Override
    public <T> T as(String actor, Supplier<T> change) {
        String previous = ACTOR.get();
        ACTOR.set(Objects.requireNonNull(actor, "actor"));
        try {
            return change.get();
        } finally {
            if (previous == null) {
                ACTOR.remove();
            } else {
                ACTOR.set(previous);
            }
        }
    }

    @Override
    public synchronized void record(String actor, String action, String tenant, Map<String, Object> before,
                                    Map<String, Object> after) {
        checkWritable();
        record(new AuditRecord(wallClockMillis.getAsLong(), Objects.requireNonNull(actor, "actor"),
                Objects.requireNonNull(action, "action"), tenant, before, after));
    }

    @Override
    public synchronized List<AuditRecord> newest(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        List<AuditRecord> out = new ArrayList<>(Math.min(limit, records.size()));
        for (Iterator<AuditRecord> it = records.descendingIterator(); it.hasNext() && out.size() < limit; ) {
            out.add(it.next());
        }
        return out;
    }

    private void checkWritable() {
        if (failWrites) {
            throw new OverrideStoreException("override store write failed: injected failure (failWrites)");
        }
    }

    private void record(AuditRecord record) {
        records.addLast(record);
        if (records.size() > MAX_RECORDS) {
            records.removeFirst();
        }
    }

    private static Map<String, Object> map(Limit limit) {
        return limit == null ? null : limit.toMap();
    }

    private static String actor() {
        String actor = ACTOR.get();
        return actor == null ? AdminApi.DEFAULT_ACTOR : actor;
    }
}

package org.sluice.edge.store.rocks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.InvalidLimitException;
import org.sluice.core.Limit;
import org.sluice.core.OverrideStoreException;
import org.sluice.edge.store.Actors;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;

/**
 * The {@link ControlState} in a {@link RocksHookStore}'s database: overrides in the
 * {@code overrides} family, the audit trail in {@code audit} (keyed by time and a counter),
 * pauses in {@code destinations} (through the ledger's {@link RocksPauses}, whose memory
 * the dispatcher reads), signing keys added at runtime in {@code meta} under
 * {@value #SIGNING_PREFIX}{@code <destination>} (fsynced, read from memory after the first
 * read). Each {@link #put} and {@link #delete} writes the override change
 * and its {@link AuditRecord} in ONE fsynced write batch, under the database's control lock
 * (which also makes the "before" it records exact). Failures surface as
 * {@link OverrideStoreException}, which {@code TenantLimits} turns into "nothing changed".
 *
 * <p>Thread-safe.
 */
public final class RocksControlState implements ControlState, SharedPauses {

    private static final Logger LOG = LoggerFactory.getLogger(RocksControlState.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };

    /** The key prefix of a destination's signing keys in the {@code meta} family. */
    static final String SIGNING_PREFIX = "signing/";

    private final RocksDatabase database;
    private final DestinationPauses pauses;
    private final long instanceMaxBodyBytes;
    /** Serialises signing writes and the first read of them. */
    private final Object signingLock = new Object();
    /** Every destination's stored signing keys; null until read. */
    private volatile Map<String, byte[]> signing;
    /** Second half of audit keys, so two changes in one millisecond keep their order. */
    private final AtomicLong auditCounter;

    /**
     * @param store                the open store holding the overrides
     * @param instanceMaxBodyBytes {@code http.max_body_bytes}, which {@link Limit#parse} needs to validate stored limits
     */
    public RocksControlState(RocksHookStore store, long instanceMaxBodyBytes) {
        Objects.requireNonNull(store, "store");
        this.database = store.database();
        this.pauses = store.deliveries().pauses();
        this.instanceMaxBodyBytes = instanceMaxBodyBytes;
        this.auditCounter = new AtomicLong(lastAuditCounter() + 1);
    }

    @Override
    public ActorScope actingAs(String actor) {
        return Actors.actingAs(actor);
    }

    // ---------------------------------------------------------------- OverrideStore

    /**
     * Every valid stored override. One that does not parse (for example after
     * {@code http.max_body_bytes} was lowered below its {@code max_body_bytes}) is skipped
     * with a warning; a store that cannot be read throws.
     */
    @Override
    public Map<String, Limit> load() {
        Map<String, byte[]> raw = wrap(() -> database.read(rocks -> {
            Map<String, byte[]> all = new LinkedHashMap<>();
            try (RocksIterator it = rocks.db().newIterator(rocks.overrides())) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    all.put(new String(it.key(), StandardCharsets.UTF_8), it.value());
                }
                it.status();
            }
            return all;
        }));
        Map<String, Limit> limits = new LinkedHashMap<>();
        raw.forEach((tenant, json) -> {
            try {
                limits.put(tenant, Limit.parse(JSON.readValue(json, MAP), instanceMaxBodyBytes));
            } catch (InvalidLimitException | java.io.IOException e) {
                LOG.warn("skipping the stored rate-limit override of tenant {}: {}", tenant, e.getMessage());
            }
        });
        return Collections.unmodifiableMap(limits);
    }

    @Override
    public void put(String tenant, Limit limit) {
        Objects.requireNonNull(tenant, "tenant");
        Map<String, Object> after = limit.toMap();
        byte[] value = json(after);
        wrap(() -> database.controlWrite(rocks -> {
            byte[] key = tenant.getBytes(StandardCharsets.UTF_8);
            Map<String, Object> before = readMap(rocks.db().get(rocks.overrides(), key));
            try (WriteBatch wb = new WriteBatch()) {
                wb.put(rocks.overrides(), key, value);
                putAudit(wb, rocks, AuditRecord.PUT, tenant, before, after);
                rocks.db().write(rocks.syncWrite(), wb);
            }
            return null;
        }));
    }

    @Override
    public boolean delete(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        return wrap(() -> database.controlWrite(rocks -> {
            byte[] key = tenant.getBytes(StandardCharsets.UTF_8);
            byte[] existing = rocks.db().get(rocks.overrides(), key);
            if (existing == null) {
                return false;
            }
            try (WriteBatch wb = new WriteBatch()) {
                wb.delete(rocks.overrides(), key);
                putAudit(wb, rocks, AuditRecord.DELETE, tenant, readMap(existing), null);
                rocks.db().write(rocks.syncWrite(), wb);
            }
            return true;
        }));
    }

    // ---------------------------------------------------------------- audit

    @Override
    public void record(String action, String tenant, Map<String, Object> before, Map<String, Object> after) {
        Objects.requireNonNull(action, "action");
        wrap(() -> database.controlWrite(rocks -> {
            try (WriteBatch wb = new WriteBatch()) {
                putAudit(wb, rocks, action, tenant, before, after);
                rocks.db().write(rocks.syncWrite(), wb);
            }
            return null;
        }));
    }

    @Override
    public List<AuditRecord> audit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return wrap(() -> database.read(rocks -> {
            List<AuditRecord> records = new ArrayList<>();
            try (RocksIterator it = rocks.db().newIterator(rocks.audit())) {
                for (it.seekToLast(); it.isValid() && records.size() < limit; it.prev()) {
                    records.add(readAudit(it.value()));
                }
                it.status();
            }
            return records;
        }));
    }

    private void putAudit(WriteBatch wb, RocksFamilies rocks, String action, String tenant,
                          Map<String, Object> before, Map<String, Object> after) throws org.rocksdb.RocksDBException {
        long now = database.wallClockMillis();
        Map<String, Object> record = new AuditRecord(now, Actors.current(), action, tenant, before, after).toStoredMap();
        byte[] key = ByteBuffer.allocate(16).putLong(Math.max(0, now)).putLong(auditCounter.getAndIncrement()).array();
        wb.put(rocks.audit(), key, json(record));
    }

    private static AuditRecord readAudit(byte[] value) {
        try {
            return AuditRecord.fromStoredMap(JSON.readValue(value, MAP));
        } catch (java.io.IOException | RuntimeException e) {
            throw new HookStoreException("unreadable audit record: " + e.getMessage(), e);
        }
    }

    private long lastAuditCounter() {
        return wrap(() -> database.read(rocks -> {
            try (RocksIterator it = rocks.db().newIterator(rocks.audit())) {
                it.seekToLast();
                return it.isValid() ? ByteBuffer.wrap(it.key(), 8, 8).getLong() : -1L;
            }
        }));
    }

    // ---------------------------------------------------------------- pauses

    /** The ledger's held destinations, answered for through {@link SharedPauses}. */
    @Override
    public DestinationPauses pauses() {
        return pauses;
    }

    // ---------------------------------------------------------------- signing keys

    @Override
    public Map<String, byte[]> signingSecrets() {
        Map<String, byte[]> read = signing;
        if (read != null) {
            return read;
        }
        synchronized (signingLock) {
            if (signing == null) {
                signing = Collections.unmodifiableMap(readSigning());
            }
            return signing;
        }
    }

    @Override
    public void putSigningSecrets(String destination, byte[] value) {
        PendingHook.checkDestination(destination);
        Objects.requireNonNull(value, "value");
        synchronized (signingLock) {
            Map<String, byte[]> next = new LinkedHashMap<>(signingSecrets());
            wrap(() -> database.controlWrite(rocks -> {
                rocks.db().put(rocks.meta(), rocks.syncWrite(), signingKey(destination), value);
                return null;
            }));
            next.put(destination, value.clone());
            signing = Collections.unmodifiableMap(next);
        }
    }

    private Map<String, byte[]> readSigning() {
        byte[] prefix = SIGNING_PREFIX.getBytes(StandardCharsets.UTF_8);
        return wrap(() -> database.read(rocks -> {
            Map<String, byte[]> all = new LinkedHashMap<>();
            try (RocksIterator it = rocks.db().newIterator(rocks.meta())) {
                for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                    byte[] key = it.key();
                    all.put(new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8), it.value());
                }
                it.status();
            }
            return all;
        }));
    }

    private static byte[] signingKey(String destination) {
        return (SIGNING_PREFIX + destination).getBytes(StandardCharsets.UTF_8);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && java.util.Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    // ---------------------------------------------------------------- helpers

    /** The stored JSON as a map, or null; an unreadable value reads as its raw text so the audit still shows it. */
    private static Map<String, Object> readMap(byte[] json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, MAP);
        } catch (java.io.IOException e) {
            Map<String, Object> raw = new LinkedHashMap<>();
            raw.put("unreadable", new String(json, StandardCharsets.UTF_8));
            return raw;
        }
    }

    private static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render " + value + " as JSON", e);
        }
    }

    private interface StoreCall<T> {
        T call();
    }

    private static <T> T wrap(StoreCall<T> call) {
        try {
            return call.call();
        } catch (HookStoreException e) {
            throw new OverrideStoreException(e.getMessage(), e);
        }
    }
}

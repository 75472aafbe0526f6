package org.sluice.edge.store.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.kafka.ControlRecords.Kind;

/**
 * One node's memory of the control topic: for each key the newest record seen and its
 * offset, the paused set, the disabled destinations, the starts of runs of failures, the
 * overrides and the signing keys derived
 * from them, and the newest audit records.
 *
 * <p>Records reach it from two sides: the follower, in offset order, and this node's own
 * writes once acknowledged (so a change is visible here as soon as it is answered, before
 * the follower reads it back). Both may bring the same record, and the writes may arrive
 * out of offset order; {@link #apply} therefore keeps a key's record only when its offset is
 * newer than the one it holds, which makes the view, per key, the topic's order whatever the
 * order of arrival. Audit records are keyed by offset, so one seen twice is kept once.
 *
 * <p>Thread-safe: one lock around every change and read of the maps, never held during I/O;
 * the paused set is also published in a volatile field for the dispatcher's lock-free reads.
 */
final class ControlView {

    /** The newest audit records kept: {@code GET /v1/audit} serves at most 1000. */
    static final int AUDIT_KEPT = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(ControlView.class);

    /**
     * What {@link #apply} changed: the kind of record (null when it changed nothing), the
     * destination or tenant it names (null for audit records), its offset and its value
     * (null: a tombstone).
     */
    record Change(Kind kind, String name, long offset, byte[] value) {
        static final Change NONE = new Change(null, null, -1, null);
    }

    /** The newest record of a key: its offset and value (null: a tombstone). */
    record Entry(long offset, byte[] value) {
    }

    private final Object lock = new Object();
    @GuardedBy("lock")
    private final Map<String, Entry> latest = new HashMap<>();
    @GuardedBy("lock")
    private final Map<String, byte[]> overrides = new HashMap<>();
    @GuardedBy("lock")
    private final Map<String, byte[]> signing = new HashMap<>();
    @GuardedBy("lock")
    private final Set<String> pausedNames = new HashSet<>();
    @GuardedBy("lock")
    private final NavigableMap<Long, AuditRecord> audit = new TreeMap<>();
    /** The paused destinations, an unmodifiable copy replaced on each change. */
    private volatile Set<String> paused = Collections.unmodifiableSet(new HashSet<>());
    /** The disabled destinations, an unmodifiable copy replaced on each change. */
    private volatile Map<String, DisabledDestination> disabled = Map.of();
    /** The stored starts of runs of failures (epoch ms), an unmodifiable copy replaced on each change. */
    private volatile Map<String, Long> failing = Map.of();

    /** Takes record {@code key} at {@code offset} (value null: a tombstone) if it is newer than the one held. */
    Change apply(String key, long offset, byte[] value) {
        Kind kind = Kind.of(key);
        if (kind == null) {
            LOG.warn("ignoring a record of unknown key {} at offset {} of the control topic", key, offset);
            return Change.NONE;
        }
        synchronized (lock) {
            if (kind == Kind.AUDIT) {
                return applyAudit(key, offset, value);
            }
            Entry held = latest.get(key);
            if (held != null && held.offset() >= offset) {
                return Change.NONE;
            }
            latest.put(key, new Entry(offset, value));
            String name = kind.nameIn(key);
            if (kind == Kind.PAUSE) {
                boolean changed = value == null ? pausedNames.remove(name) : pausedNames.add(name);
                if (changed) {
                    paused = Collections.unmodifiableSet(new HashSet<>(pausedNames));
                }
            } else if (kind == Kind.DISABLE) {
                disabled = changed(disabled, key, offset, name, value, ControlRecords::disabled);
            } else if (kind == Kind.FAILING) {
                failing = changed(failing, key, offset, name, value, ControlRecords::failingSince);
            } else if (kind == Kind.SIGNING) {
                if (value == null) {
                    signing.remove(name);
                } else {
                    signing.put(name, value);
                }
            } else if (value == null) {
                overrides.remove(name);
            } else {
                overrides.put(name, value);
            }
            return new Change(kind, name, offset, value);
        }
    }

    /**
     * {@code held} with {@code name} set to the value read from a record (null: a tombstone,
     * removed), as a new unmodifiable map; {@code held} itself when the value cannot be read.
     */
    private static <V> Map<String, V> changed(Map<String, V> held, String key, long offset, String name, byte[] value,
                                              Function<byte[], V> read) {
        Map<String, V> next = new TreeMap<>(held);
        if (value == null) {
            next.remove(name);
        } else {
            try {
                next.put(name, read.apply(value));
            } catch (IllegalArgumentException e) {
                LOG.warn("ignoring the unreadable record {} at offset {}: {}", key, offset, e.getMessage());
                return held;
            }
        }
        return Collections.unmodifiableMap(next);
    }

    @GuardedBy("lock")
    private Change applyAudit(String key, long offset, byte[] value) {
        if (value == null || audit.containsKey(offset)) {
            return Change.NONE;
        }
        if (audit.size() >= AUDIT_KEPT && offset < audit.firstKey()) {
            return Change.NONE;
        }
        AuditRecord record;
        try {
            record = ControlRecords.audit(value);
        } catch (IllegalArgumentException e) {
            LOG.warn("ignoring the unreadable audit record {} at offset {}: {}", key, offset, e.getMessage());
            return Change.NONE;
        }
        audit.put(offset, record);
        if (audit.size() > AUDIT_KEPT) {
            audit.pollFirstEntry();
        }
        return new Change(Kind.AUDIT, null, offset, value);
    }

    /** The offset of the newest record of {@code key} taken, or -1 when none was. */
    long offsetOf(String key) {
        synchronized (lock) {
            Entry held = latest.get(key);
            return held == null ? -1 : held.offset();
        }
    }

    Set<String> paused() {
        return paused;
    }

    Map<String, DisabledDestination> disabled() {
        return disabled;
    }

    Map<String, Long> failing() {
        return failing;
    }

    /** Each tenant's override as stored (JSON), a copy. */
    Map<String, byte[]> overrides() {
        synchronized (lock) {
            return new HashMap<>(overrides);
        }
    }

    /** Each tenant's override as stored, with the offset of its record, a copy. */
    Map<String, Entry> overrideEntries() {
        synchronized (lock) {
            Map<String, Entry> out = new HashMap<>();
            overrides.keySet().forEach(tenant -> out.put(tenant, latest.get(Kind.OVERRIDE.key(tenant))));
            return out;
        }
    }

    /** Each destination's signing keys as stored, a copy. */
    Map<String, byte[]> signing() {
        synchronized (lock) {
            return new HashMap<>(signing);
        }
    }

    /** {@code tenant}'s override as stored, or null. */
    byte[] override(String tenant) {
        synchronized (lock) {
            return overrides.get(tenant);
        }
    }

    /** The newest {@code limit} audit records, newest first. */
    List<AuditRecord> audit(int limit) {
        synchronized (lock) {
            List<AuditRecord> out = new ArrayList<>(Math.min(limit, audit.size()));
            for (AuditRecord r : audit.descendingMap().values()) {
                if (out.size() == limit) {
                    break;
                }
                out.add(r);
            }
            return out;
        }
    }

    static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.UTF_8);
    }
}

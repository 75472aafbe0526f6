package org.sluice.edge.store.rocks;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.PendingHook;

/**
 * The held destinations (paused by an operator, disabled by the dispatcher), stored in the
 * {@code destinations} family (one record per destination ever paused, resumed, disabled or
 * enabled, fsynced; {@link DeliveryCodec}) and kept in memory after the first read, which the
 * dispatcher relies on: it asks every pass, and the commit path asks {@link #mayBePaused}
 * for each claim. Shared by the delivery ledger and the control state.
 *
 * <p>A record holds both flags and the start of the destination's run of failures, so each
 * change writes the record as memory has it with its one part changed, under
 * {@code heldLock}: a pause never clears a disable, nor the reverse. A disable or an enable
 * clears the run's start in the same write ({@link DestinationPauses#setDisabled}).
 */
final class RocksPauses implements DestinationPauses {

    /** What memory has of the held destinations: one immutable snapshot, replaced whole. */
    private record Held(Set<String> paused, Map<String, DisabledDestination> disabled, Map<String, Long> failing) {

        long failingSince(String destination) {
            return failing.getOrDefault(destination, DestinationPauses.NOT_FAILING);
        }
    }

    private final LedgerStore store;
    /** Serialises changes and the first read of the held state. */
    private final Object heldLock = new Object();
    /** The held destinations as stored; null until read (again after a reopen). */
    private volatile Held heldCache;

    RocksPauses(LedgerStore store) {
        this.store = store;
    }

    /** Forgets the state read, which is read again at the next ask; after a reopen of the store. */
    void forget() {
        heldCache = null;
    }

    /** Pauses or resumes a destination; fsynced, so the state survives a restart. */
    @Override
    public void setPaused(String destination, boolean paused, long nowMillis) {
        PendingHook.checkDestination(destination);
        synchronized (heldLock) {
            Held before = held();
            write(destination, paused, before.disabled().get(destination), before.failingSince(destination), nowMillis);
            Set<String> after = new TreeSet<>(before.paused());
            if (paused) {
                after.add(destination);
            } else {
                after.remove(destination);
            }
            heldCache = new Held(pausedSet(after), before.disabled(), before.failing());
        }
    }

    /** Disables ({@code disabled} non-null) or enables a destination; fsynced. */
    @Override
    public void setDisabled(String destination, DisabledDestination disabled, long nowMillis) {
        PendingHook.checkDestination(destination);
        synchronized (heldLock) {
            Held before = held();
            write(destination, before.paused().contains(destination), disabled, NOT_FAILING, nowMillis);
            heldCache = new Held(before.paused(), changed(before.disabled(), destination, disabled),
                    changed(before.failing(), destination, null));
        }
    }

    /** Stores ({@code sinceMillis} at least 0) or clears the start of a run of failures; fsynced. */
    @Override
    public void setFailingSince(String destination, long sinceMillis, long nowMillis) {
        PendingHook.checkDestination(destination);
        long since = Math.max(NOT_FAILING, sinceMillis);
        synchronized (heldLock) {
            Held before = held();
            write(destination, before.paused().contains(destination), before.disabled().get(destination), since, nowMillis);
            heldCache = new Held(before.paused(), before.disabled(),
                    changed(before.failing(), destination, since < 0 ? null : since));
        }
    }

    /** An unmodifiable copy of {@code map} with {@code key} set to {@code value}, or removed (null). */
    private static <V> Map<String, V> changed(Map<String, V> map, String key, V value) {
        Map<String, V> after = new TreeMap<>(map);
        if (value != null) {
            after.put(key, value);
        } else {
            after.remove(key);
        }
        return Collections.unmodifiableMap(after);
    }

    private void write(String destination, boolean paused, DisabledDestination disabled, long failingSince,
                       long updatedMillis) {
        store.write(true, (f, writeOptions) -> {
            RocksDB db = f.db();
            db.put(f.destinations(), writeOptions, Codec.utf8(destination),
                    DeliveryCodec.destination(paused, disabled, failingSince, updatedMillis));
            return null;
        });
    }

    /**
     * An unmodifiable copy of {@code names} of one class whatever its size. {@code Set.copyOf}
     * returns a different class for none, one or two, and more names, and the commit path and
     * the dispatcher's passes call {@code contains} on this set: a pause that changed its class
     * sent their compiled code back to the lower tiers (C2's {@code class_check} trap in
     * {@link #mayBePaused}; docs/bench-notes/brokers-2026-12-05-to-06.md, "Which traps").
     */
    static Set<String> pausedSet(Collection<String> names) {
        return Collections.unmodifiableSet(new HashSet<>(names));
    }

    /**
     * The destinations stored as paused. Read from the store once, then kept in memory and
     * changed by {@link #setPaused} after its write (the dispatcher asks every pass).
     */
    @Override
    public Set<String> pausedDestinations() {
        return held().paused();
    }

    @Override
    public Map<String, DisabledDestination> disabledDestinations() {
        return held().disabled();
    }

    @Override
    public Map<String, Long> failingSince() {
        return held().failing();
    }

    /**
     * Whether {@code destination} may be held, from memory only (no read, no lock): true when
     * paused or disabled, and also when the state has not been read since the store opened.
     */
    @Override
    public boolean mayBePaused(String destination) {
        Held cached = heldCache;
        return cached == null || cached.paused().contains(destination)
                || (!cached.disabled().isEmpty() && cached.disabled().containsKey(destination));
    }

    private Held held() {
        Held cached = heldCache;
        if (cached != null) {
            return cached;
        }
        synchronized (heldLock) {
            if (heldCache == null) {
                heldCache = readHeld();
            }
            return heldCache;
        }
    }

    private Held readHeld() {
        return store.read((f, unused) -> {
            RocksDB db = f.db();
            Set<String> paused = new TreeSet<>();
            Map<String, DisabledDestination> disabled = new TreeMap<>();
            Map<String, Long> failing = new TreeMap<>();
            try (RocksIterator it = db.newIterator(f.destinations())) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    String name = new String(it.key(), StandardCharsets.UTF_8);
                    if (DeliveryCodec.destinationPaused(it.value())) {
                        paused.add(name);
                    }
                    DisabledDestination d = DeliveryCodec.destinationDisabled(it.value());
                    if (d != null) {
                        disabled.put(name, d);
                    }
                    long since = DeliveryCodec.destinationFailingSince(it.value());
                    if (since >= 0) {
                        failing.put(name, since);
                    }
                }
                it.status();
            }
            return new Held(pausedSet(paused), Collections.unmodifiableMap(disabled), Collections.unmodifiableMap(failing));
        });
    }
}

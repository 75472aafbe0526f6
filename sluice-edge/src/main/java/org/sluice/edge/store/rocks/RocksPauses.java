package org.sluice.edge.store.rocks;

import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.PendingHook;

/**
 * The paused destinations, stored in the {@code destinations} family (one record per
 * destination ever paused or resumed, fsynced) and kept in memory after the first read,
 * which the dispatcher relies on: it asks every pass, and the commit path asks
 * {@link #mayBePaused} for each claim. Shared by the delivery ledger and the control state.
 */
final class RocksPauses implements DestinationPauses {

    private final LedgerStore store;
    /** Serialises {@link #setPaused} calls and the first read of the paused set. */
    private final Object pausedLock = new Object();
    /** The paused destinations as stored; null until read (again after a reopen). */
    private volatile Set<String> pausedCache;

    RocksPauses(LedgerStore store) {
        this.store = store;
    }

    /** Forgets the set read, which is read again at the next ask; after a reopen of the store. */
    void forget() {
        pausedCache = null;
    }

    /** Pauses or resumes a destination; fsynced, so the state survives a restart. */
    @Override
    public void setPaused(String destination, boolean paused, long nowMillis) {
        PendingHook.checkDestination(destination);
        synchronized (pausedLock) {
            Set<String> before = pausedDestinations();
            store.write(true, (f, writeOptions) -> {
                RocksDB db = f.db();
                db.put(f.destinations(), writeOptions, Codec.utf8(destination),
                        DeliveryCodec.destination(paused, nowMillis));
                return null;
            });
            Set<String> after = new TreeSet<>(before);
            if (paused) {
                after.add(destination);
            } else {
                after.remove(destination);
            }
            pausedCache = pausedSet(after);
        }
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
        Set<String> cached = pausedCache;
        if (cached != null) {
            return cached;
        }
        synchronized (pausedLock) {
            if (pausedCache == null) {
                pausedCache = readPaused();
            }
            return pausedCache;
        }
    }

    /**
     * Whether {@code destination} may be paused, from memory only (no read, no lock): true
     * when paused, and also when the paused set has not been read since the store opened.
     */
    @Override
    public boolean mayBePaused(String destination) {
        Set<String> cached = pausedCache;
        return cached == null || cached.contains(destination);
    }

    private Set<String> readPaused() {
        return store.read((f, unused) -> {
            RocksDB db = f.db();
            Set<String> paused = new TreeSet<>();
            try (RocksIterator it = db.newIterator(f.destinations())) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    if (DeliveryCodec.destinationPaused(it.value())) {
                        paused.add(new String(it.key(), java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
                it.status();
            }
            return pausedSet(paused);
        });
    }
}

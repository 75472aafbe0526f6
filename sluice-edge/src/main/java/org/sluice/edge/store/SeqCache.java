package org.sluice.edge.store;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded, lossy memory of which sequence number a hook id was committed under, so that
 * the delivery path (which names hooks by id) can skip the {@code hook_ids} index read,
 * and of the recently committed hooks themselves, so that the dispatcher's read of a hook
 * it is about to send skips the store.
 *
 * <p>Direct-mapped: {@value #SLOTS} slots, a slot chosen by a mix of the id's bits, a new
 * entry replacing whatever was there. The numbers take a fixed amount of memory (about
 * 600 KiB) whatever the number of hooks. The hooks kept with them are bounded by bytes:
 * at most {@link #HOOK_BYTES} of bodies plus {@value #HOOK_OVERHEAD} bytes each, and
 * no body over {@value #MAX_HOOK_BODY} bytes; a hook that does not fit is simply not
 * kept. A miss costs what the cache saves (an index read, a hook read); nothing depends on
 * a hit.
 *
 * <p>Why an entry can never be wrong: a {@link HookStore} hands out each sequence number
 * once (numbers of failed batches stay consumed, a reopen continues past the last one), and
 * an id is committed once, under one number, with content that never changes. So
 * {@code id -> (seq, hook)} never changes while the store lives; once retention deletes the
 * hook, reads at that number find nothing, exactly as an index read would find no id (and
 * the kept hook is only served to the dispatcher, which reads only hooks with a pending
 * delivery, never deleted). An entry made for a batch whose write then failed names an id
 * that no caller was ever given.
 *
 * <p>Thread-safe without locks: an entry is an immutable object with final fields, swapped
 * in whole. Entries are only made by the commit path, under the store's commit lock (one
 * thread at a time), so the byte count it checks before adding is never exceeded. The due
 * scan adds nothing: it hands the dispatcher the numbers it read
 * ({@link HookStore#getForDelivery(String, long)}), so scanning a backlog never pushes the
 * recent hooks out.
 */
final class SeqCache {

    static final int SLOTS = 1 << 14;
    /** Most body bytes (plus {@value #HOOK_OVERHEAD} per hook) of the hooks kept at once: 32 MiB. */
    static final long HOOK_BYTES = 32L << 20;
    /** A hook with a larger body is never kept. */
    static final int MAX_HOOK_BODY = 256 * 1024;
    /** What a kept hook is counted for besides its body: the entry, the record, headers and strings. */
    static final int HOOK_OVERHEAD = 1024;

    private record Entry(long msb, long lsb, long seq, StoredHook hook) {
        boolean names(UUID id) {
            return msb == id.getMostSignificantBits() && lsb == id.getLeastSignificantBits();
        }

        long bytes() {
            return hook == null ? 0 : hook.body().length + (long) HOOK_OVERHEAD;
        }
    }

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicLong hookBytes = new AtomicLong();

    /**
     * Remembers {@code id}'s number and, if it fits the byte bound, the hook itself. Called
     * by one thread at a time (the commit path, under the commit lock).
     */
    void put(UUID id, long seq, StoredHook hook) {
        int i = slot(id);
        Entry old = slots.get(i);
        long freed = old == null ? 0 : old.bytes();
        long size = hook.body().length + (long) HOOK_OVERHEAD;
        boolean keep = hook.body().length <= MAX_HOOK_BODY && hookBytes.get() - freed + size <= HOOK_BYTES;
        replace(i, new Entry(id.getMostSignificantBits(), id.getLeastSignificantBits(), seq, keep ? hook : null));
    }

    private void replace(int i, Entry e) {
        Entry old = slots.getAndSet(i, e);
        long delta = e.bytes() - (old == null ? 0 : old.bytes());
        if (delta != 0) {
            hookBytes.addAndGet(delta);
        }
    }

    /** The sequence number {@code id} was committed under, or -1 when this cache does not know. */
    long get(UUID id) {
        Entry e = slots.get(slot(id));
        return e != null && e.names(id) ? e.seq : -1;
    }

    /** The hook committed as {@code id} if it is kept here, else null. */
    StoredHook hook(UUID id) {
        Entry e = slots.get(slot(id));
        return e != null && e.names(id) ? e.hook : null;
    }

    /** Body bytes plus overhead of the hooks kept now (at most {@link #HOOK_BYTES}). */
    long hookBytes() {
        return hookBytes.get();
    }

    private static int slot(UUID id) {
        long h = id.getMostSignificantBits() ^ id.getLeastSignificantBits();
        h *= 0x9E3779B97F4A7C15L;
        return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SLOTS)));
    }
}

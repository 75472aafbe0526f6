package org.sluice.edge.store;

import java.util.UUID;

/**
 * A bounded, lossy memory of which sequence number a hook id was committed under, so that
 * the delivery path (which names hooks by id) can skip the {@code hook_ids} index read.
 *
 * <p>Direct-mapped: {@value #SLOTS} slots, a slot chosen by a mix of the id's bits, a new
 * entry replacing whatever was there. Memory is therefore fixed (about 600 KiB) whatever
 * the number of hooks. A miss costs what the cache saves, one index read; nothing depends
 * on a hit.
 *
 * <p>Why an entry can never be wrong: a {@link HookStore} hands out each sequence number
 * once (numbers of failed batches stay consumed, a reopen continues past the last one), and
 * an id is committed once, under one number. So {@code id -> seq} never changes while the
 * store lives; once retention deletes the hook, reads at that number find nothing, exactly
 * as an index read would find no id. An entry made for a batch whose write then failed
 * names an id that no caller was ever given.
 *
 * <p>Thread-safe without locks: slots are written and read plainly; an entry is an
 * immutable object with final fields, so a reader sees either a whole entry or another
 * one (or none), and it checks the id before using the number.
 */
final class SeqCache {

    static final int SLOTS = 1 << 14;

    private record Entry(long msb, long lsb, long seq) {
    }

    private final Entry[] slots = new Entry[SLOTS];

    void put(UUID id, long seq) {
        slots[slot(id)] = new Entry(id.getMostSignificantBits(), id.getLeastSignificantBits(), seq);
    }

    /** The sequence number {@code id} was committed under, or -1 when this cache does not know. */
    long get(UUID id) {
        Entry e = slots[slot(id)];
        return e != null && e.msb == id.getMostSignificantBits() && e.lsb == id.getLeastSignificantBits() ? e.seq : -1;
    }

    private static int slot(UUID id) {
        long h = id.getMostSignificantBits() ^ id.getLeastSignificantBits();
        h *= 0x9E3779B97F4A7C15L;
        return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SLOTS)));
    }
}

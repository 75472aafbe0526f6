package org.sluice.edge.store.rocks;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.sluice.edge.store.StoredHook;

/**
 * A bounded, lossy memory of which sequence number a hook id was committed under, so that
 * the delivery path (which names hooks by id) can skip the {@code hook_ids} index read,
 * and of the most recently committed hooks themselves, so that the dispatcher's read of a
 * hook it is about to send skips the store.
 *
 * <h2>Two parts</h2>
 * <ul>
 *   <li><b>Numbers</b>, direct-mapped by id: {@value #SLOTS} slots, a slot chosen by a mix
 *   of the id's bits, a new entry replacing whatever was there; a fixed amount of memory
 *   (about 600 KiB) whatever the number of hooks.</li>
 *   <li><b>Hooks</b>, a ring indexed by sequence number ({@value #HOOK_SLOTS} slots): the
 *   hooks of the latest commits, oldest out first. Commits number hooks in order, and a
 *   dispatcher that has fallen behind reads them in that order, so the ring keeps exactly
 *   the hooks a backlog reaches next, where a map by id would lose a random share of even
 *   the recent ones to collisions. Bounded by bytes: the bodies plus {@value #HOOK_OVERHEAD}
 *   bytes each stay within the bound given at construction (by default
 *   {@link #defaultHookBytes()}: 128 MiB, or an eighth of the maximum heap if that is
 *   less); no body over {@value #MAX_HOOK_BODY} bytes is kept. To make room the oldest
 *   kept hooks go first.</li>
 * </ul>
 * A hook whose every delivery is claimed at its commit goes to the dispatcher with the claim
 * and is not kept ({@link #remember}); a kept hook leaves the ring once the dispatcher has
 * read it for each delivery it was kept for ({@link #take}). A dispatcher that keeps up then
 * leaves the ring nearly empty, and the bodies die young instead of being copied by each
 * young collection and promoted to the old generation before the ring drops them; one that
 * has fallen behind finds the backlog it reaches next there, as before.
 * A miss costs what the memory saves (an index read, a hook read); nothing depends on a hit.
 *
 * <p>Why an entry can never be wrong: a {@link HookStore} hands out each sequence number
 * once (numbers of failed batches stay consumed, a reopen continues past the last one), and
 * an id is committed once, under one number, with content that never changes. So
 * {@code id -> (seq, hook)} never changes while the store lives; once retention deletes the
 * hook, reads at that number find nothing, exactly as an index read would find no id (and
 * the kept hook is only served to the dispatcher, which reads only hooks with a pending
 * delivery, never deleted). An entry made for a batch whose write then failed names an id
 * that no caller was ever given. A lookup checks both the number and the id.
 *
 * <p>Thread-safe without locks for readers: an entry is swapped in whole, its fields final
 * but the count of takes left (atomic). Entries are only made by the commit path, under the
 * store's commit lock (one thread at a time; {@link #put} is also synchronized,
 * uncontended), so the order of kept numbers needs no atomics beyond publication; an entry
 * leaves its slot by a compare-and-set, the ring's drop or the last take, and whichever
 * succeeds counts its bytes off. The
 * due scan adds nothing: it hands the dispatcher the numbers it read
 * ({@link HookStore#getForDelivery(String, long)}), so scanning a backlog never pushes the
 * recent hooks out.
 */
final class SeqCache {

    static final int SLOTS = 1 << 14;
    /** Slots of the ring of kept hooks: at most this many hooks are kept, whatever their size. */
    static final int HOOK_SLOTS = 1 << 17;
    /** The default bound on kept bytes, before the heap's share: 128 MiB. */
    static final long HOOK_BYTES = 128L << 20;
    /** A hook with a larger body is never kept. */
    static final int MAX_HOOK_BODY = 256 * 1024;
    /** What a kept hook is counted for besides its body: the entry, the record, headers and strings. */
    static final int HOOK_OVERHEAD = 1024;

    private record Entry(long msb, long lsb, long seq) {
        boolean names(UUID id) {
            return msb == id.getMostSignificantBits() && lsb == id.getLeastSignificantBits();
        }
    }

    /** A kept hook, and how many of the dispatcher's reads it still waits for (see {@link #take}). */
    private static final class Kept {
        private static final AtomicIntegerFieldUpdater<Kept> TAKES_LEFT =
                AtomicIntegerFieldUpdater.newUpdater(Kept.class, "takesLeft");
        final long msb;
        final long lsb;
        final long seq;
        final StoredHook hook;
        private volatile int takesLeft;

        Kept(long msb, long lsb, long seq, StoredHook hook, int takes) {
            this.msb = msb;
            this.lsb = lsb;
            this.seq = seq;
            this.hook = hook;
            this.takesLeft = takes;
        }

        boolean is(UUID id, long seq) {
            return this.seq == seq && msb == id.getMostSignificantBits() && lsb == id.getLeastSignificantBits();
        }

        /** Counts one take; true for the last one. */
        boolean lastTake() {
            return TAKES_LEFT.decrementAndGet(this) == 0;
        }

        long bytes() {
            return hook.body().length + (long) HOOK_OVERHEAD;
        }
    }

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicReferenceArray<Kept> ring = new AtomicReferenceArray<>(HOOK_SLOTS);
    /** The numbers put in the ring, in put order (increasing), oldest at {@link #head}; writer only. */
    private final long[] order = new long[HOOK_SLOTS];
    private long head;
    private long tail;
    private final AtomicLong hookBytes = new AtomicLong();
    private final long maxHookBytes;

    /** A memory bounded by {@link #defaultHookBytes()}. */
    SeqCache() {
        this(defaultHookBytes());
    }

    /** A memory that keeps at most {@code maxHookBytes} of hooks (bodies plus overhead). */
    SeqCache(long maxHookBytes) {
        if (maxHookBytes < 0) {
            throw new IllegalArgumentException("maxHookBytes " + maxHookBytes + " < 0");
        }
        this.maxHookBytes = maxHookBytes;
    }

    /** 128 MiB, or an eighth of the JVM's maximum heap if that is less. */
    static long defaultHookBytes() {
        return Math.min(HOOK_BYTES, Runtime.getRuntime().maxMemory() / 8);
    }

    /** The bound on kept bytes. */
    long maxHookBytes() {
        return maxHookBytes;
    }

    /**
     * Remembers {@code id}'s number and, if it fits the byte bound, the hook itself (making
     * room by dropping the oldest kept hooks) until {@code takes} reads by {@link #take}
     * (one per delivery the dispatcher will read it for) or the ring drops it. Called by one
     * thread at a time (the commit path, under the commit lock), with increasing numbers.
     */
    synchronized void put(UUID id, long seq, StoredHook hook, int takes) {
        if (takes < 1) {
            throw new IllegalArgumentException("takes " + takes + " < 1");
        }
        remember(id, seq);
        long msb = id.getMostSignificantBits();
        long lsb = id.getLeastSignificantBits();
        long size = hook.body().length + (long) HOOK_OVERHEAD;
        if (hook.body().length > MAX_HOOK_BODY || size > maxHookBytes) {
            return;
        }
        if (tail - head == HOOK_SLOTS) {
            dropOldest();
        }
        while (hookBytes.get() + size > maxHookBytes && tail > head) {
            dropOldest(); // size fits an empty ring (a take's release in progress may overshoot by its hook, briefly)
        }
        int i = ringSlot(seq);
        Kept old = ring.get(i);
        if (old != null) { // an older number on the same slot (its order entry is still queued)
            release(i, old);
        }
        hookBytes.addAndGet(size); // before the hook is visible: a take that releases it never drives the count below zero
        ring.set(i, new Kept(msb, lsb, seq, hook, takes));
        order[(int) (tail++ & (HOOK_SLOTS - 1))] = seq;
    }

    /**
     * Remembers {@code id}'s number alone, not the hook: for a hook whose every delivery was
     * claimed at its commit, so the dispatcher already holds it and never asks (keeping it
     * would only carry its body through the young collections into the old generation).
     */
    void remember(UUID id, long seq) {
        slots.set(slot(id), new Entry(id.getMostSignificantBits(), id.getLeastSignificantBits(), seq));
    }

    /** Forgets the oldest number put in the ring, and its hook if that is still the one on its slot. */
    private void dropOldest() {
        long seq = order[(int) (head++ & (HOOK_SLOTS - 1))];
        int i = ringSlot(seq);
        Kept k = ring.get(i);
        if (k != null && k.seq == seq) {
            release(i, k);
        }
    }

    /** Takes {@code k} off slot {@code i} if it is still there; its bytes are counted off once, by whoever took it off. */
    private void release(int i, Kept k) {
        if (ring.compareAndSet(i, k, null)) {
            hookBytes.addAndGet(-k.bytes());
        }
    }

    /** The sequence number {@code id} was committed under, or -1 when this cache does not know. */
    long get(UUID id) {
        Entry e = slots.get(slot(id));
        return e != null && e.names(id) ? e.seq : -1;
    }

    /** The hook committed as {@code id} under {@code seq} if it is kept here, else null: a look that counts no {@link #take} (tests). */
    StoredHook hook(UUID id, long seq) {
        if (seq < 0) {
            return null;
        }
        Kept k = ring.get(ringSlot(seq));
        return k != null && k.is(id, seq) ? k.hook : null;
    }

    /**
     * As {@link #hook(UUID, long)} ({@code seq} -1: the remembered number), for the
     * dispatcher about to send it: the last of the takes {@link #put} was told of drops it
     * from the ring, since every delivery that was to read it now has it. A take beyond
     * those (a retry, a redelivery) may then miss and read the store, which is all a miss
     * costs.
     */
    StoredHook take(UUID id, long seq) {
        long at = seq < 0 ? get(id) : seq;
        if (at < 0) {
            return null;
        }
        int i = ringSlot(at);
        Kept k = ring.get(i);
        if (k == null || !k.is(id, at)) {
            return null;
        }
        if (k.lastTake()) {
            release(i, k);
        }
        return k.hook;
    }

    /** Body bytes plus overhead of the hooks kept now (at most {@link #maxHookBytes()}). */
    long hookBytes() {
        return hookBytes.get();
    }

    private static int ringSlot(long seq) {
        return (int) (seq & (HOOK_SLOTS - 1));
    }

    private static int slot(UUID id) {
        long h = id.getMostSignificantBits() ^ id.getLeastSignificantBits();
        h *= 0x9E3779B97F4A7C15L;
        return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SLOTS)));
    }
}

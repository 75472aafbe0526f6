package org.sluice.shm;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.sluice.core.Gcra;

/**
 * A fixed table of bucket words in a carve of the mapped file, and the one
 * compare-and-swap loop that every operation on it goes through. {@link SharedRate} and
 * {@link SharedGcraTable} are thin policies over this class.
 *
 * <h2>Layout of a carve</h2>
 * <pre>
 *  carve offset
 *  +0      +-----------------------------------------------------------+
 *          | counter stripe 0: allowed | denied | evicted | contended  |  64 bytes
 *          | counter stripe 1 ...                                      |  (one cache
 *          | ...                       16 stripes                      |   line each)
 *  +1024   +-----------------------------------------------------------+
 *          | group 0: word 0 | word 1 | word 2 | word 3                |  32 bytes
 *          | group 1: ...                                              |
 *          | ...               slots / 4 groups                        |
 *          +-----------------------------------------------------------+
 * </pre>
 * A key's 64-bit hash picks a group (low bits), a home word within it (two more bits)
 * and a fingerprint (the top 24 bits, see {@link BucketWord}). The four words of a group
 * share one cache line, so a lookup costs one line.
 *
 * <h2>States of a word</h2>
 * <ul>
 *   <li>empty ({@code 0});</li>
 *   <li>owned and in debt ({@code fp|tat} with the tat ahead of now): live;</li>
 *   <li>owned and full (tat at or behind now): as good as empty, reclaimable by any key.</li>
 * </ul>
 *
 * <h2>The loop ({@link #update})</h2>
 * Read the group's four words (volatile reads, probe order home, home+1, ...). Pick the
 * target: the word carrying our fingerprint if any (first in probe order); else the
 * first reclaimable word; else our home word, which we take over from a live bucket
 * ({@code evicted}). Compute the new word from the old one with {@link Gcra}, then CAS
 * it in. A failed CAS means another thread or process changed the group; read again.
 * After {@link #MAX_ATTEMPTS} failures the operation gives up: a charge is then admitted
 * uncounted (fail-open, {@code contended}).
 *
 * <h2>Invariants and why they hold</h2>
 * <ul>
 *   <li>Identity and state change together: the fingerprint is in the word the CAS
 *       writes, so a bucket can never be charged under another key's identity by a
 *       racing takeover (the CAS would fail on the changed word).</li>
 *   <li>A refusal writes nothing; only an admission, a reset or a forget writes.</li>
 *   <li>Takeover only ever replaces a bucket by a fresh (full) one for the new key: the
 *       victim later starts full, so it gets more requests than it should, never fewer.</li>
 *   <li>Two fingerprints can collide (two keys whose hashes share group and the top 24
 *       bits, probability about 4 / 2^24 per lookup in a full group): the two keys then
 *       share one bucket until it is full again. The hash is keyed (SipHash under a
 *       random key per arena, see {@link KeyHash}), so a sender cannot choose such keys.</li>
 *   <li>Two processes inserting the same new key at the same instant pick the same
 *       word (the first reclaimable one in probe order) unless a neighbour's bucket turns
 *       full between their two reads; then the key can briefly own two words, and gets
 *       at most one extra admission per racing inserter. Keys already in the table are
 *       unaffected.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * Words are read with {@code getVolatile} and written only by {@code compareAndSet}
 * (sequentially consistent), through {@link MappedWords} over the carve (bounds checked
 * once there, when the table is made: every offset below is the carve's start plus a
 * masked group index, a two-bit home and a stripe below 16, so it cannot leave the
 * carve); the word offsets are 8-byte aligned in a page-aligned mapping, which those
 * atomic operations require. Counters use an atomic add. Nothing else is shared.
 */
final class SlotTable {

    static final int STRIPES = 16;
    static final int STRIPE_BYTES = 64;
    static final int COUNTERS_BYTES = STRIPES * STRIPE_BYTES;
    static final int GROUP = 4;
    static final int MIN_SLOTS = 8;
    static final int MAX_SLOTS = 1 << 26;
    /** Compare-and-swap attempts before an operation gives up (a charge then fails open). */
    static final int MAX_ATTEMPTS = 64;

    static final int ALLOWED = 0;
    static final int DENIED = 8;
    static final int EVICTED = 16;
    static final int CONTENDED = 24;

    static final int OP_CHARGE = 0;
    static final int OP_RESET = 1;
    static final int OP_FORGET = 2;

    private static final long STRIPE_SALT = ProcessHandle.current().pid() * 0x9E3779B97F4A7C15L;

    private final MappedWords words;
    private final int countersOffset;
    private final int wordsOffset;
    private final int slots;
    private final int groupMask;
    private final int maxAttempts;

    SlotTable(ByteBuffer map, int carveOffset, int slots) {
        this(map, carveOffset, slots, MAX_ATTEMPTS);
    }

    /** {@code maxAttempts} other than {@link #MAX_ATTEMPTS} only in tests of the fail-open path. */
    SlotTable(ByteBuffer map, int carveOffset, int slots, int maxAttempts) {
        this.maxAttempts = maxAttempts;
        if (Integer.bitCount(slots) != 1 || slots < MIN_SLOTS || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("slots must be a power of two between " + MIN_SLOTS + " and " + MAX_SLOTS + ", got " + slots);
        }
        if (carveOffset < 0 || carveOffset + carveBytes(slots) > map.capacity()) {
            throw new IllegalArgumentException("a carve of " + slots + " slots at offset " + carveOffset
                    + " does not fit in a mapping of " + map.capacity() + " bytes");
        }
        this.words = new MappedWords(map, carveOffset, (int) (carveOffset + carveBytes(slots)));
        this.countersOffset = carveOffset;
        this.wordsOffset = carveOffset + COUNTERS_BYTES;
        this.slots = slots;
        this.groupMask = slots / GROUP - 1;
    }

    /** Bytes a carve of {@code slots} words takes (counters included). */
    static long carveBytes(int slots) {
        return COUNTERS_BYTES + 8L * slots;
    }

    /** {@code requested} rounded up to a power of two, at least {@link #MIN_SLOTS}. */
    static int roundSlots(String field, long requested) {
        if (requested < 1 || requested > MAX_SLOTS) {
            throw new IllegalArgumentException(field + " must be between 1 and " + MAX_SLOTS + ", got " + requested);
        }
        int n = Math.max(MIN_SLOTS, (int) requested);
        return Integer.bitCount(n) == 1 ? n : Integer.highestOneBit(n) << 1;
    }

    int slots() {
        return slots;
    }

    // ------------------------------------------------------------------ the one loop

    /**
     * Applies {@code op} to the key's bucket at {@code now} (microseconds): a charge of
     * {@code increment} with {@code tolerance}, a reset to full, or a forget. Returns the
     * wait in microseconds for a refused charge, else 0.
     */
    long update(long hash, int op, long increment, long tolerance, long now) {
        long fp = BucketWord.fingerprint(hash);
        int group = wordsOffset + (int) (hash & groupMask) * (GROUP * 8);
        int home = (int) (hash >>> 32) & (GROUP - 1);
        for (int attempt = 0; attempt < maxAttempts; attempt++) {
            int target = -1;
            long old = 0;
            long homeWord = 0;
            boolean own = false;
            for (int i = 0; i < GROUP; i++) {
                int at = group + (((home + i) & (GROUP - 1)) << 3);
                long w = words.getVolatile(at);
                if (i == 0) {
                    homeWord = w;
                }
                if (w != 0 && BucketWord.fingerprintOf(w) == fp) {
                    target = at;
                    old = w;
                    own = true;
                    break;
                }
                if (target < 0 && BucketWord.reclaimable(w, now)) {
                    target = at;
                    old = w;
                }
            }
            long next;
            if (op == OP_CHARGE) {
                boolean evict = false;
                long tat;
                if (own) {
                    tat = BucketWord.tat(old, now, tolerance);
                } else {
                    tat = now;
                    if (target < 0) { // every word is live and someone else's: take over home
                        target = group + (home << 3);
                        old = homeWord; // the CAS fails, and we read again, if it changed since
                        evict = true;
                    }
                }
                long wait = Gcra.waitNanos(tat, now, increment, tolerance);
                if (wait > 0) {
                    count(DENIED);
                    return wait;
                }
                long tatAfter = Gcra.admittedTat(tat, now, increment, tolerance);
                if (own && tatAfter == tat) {
                    count(ALLOWED); // a zero charge changes nothing
                    return 0;
                }
                next = BucketWord.encode(fp, tatAfter);
                if (words.compareAndSet(target, old, next)) {
                    count(ALLOWED);
                    if (evict) {
                        count(EVICTED);
                    }
                    return 0;
                }
            } else {
                if (!own) {
                    return 0; // absent is full: nothing to reset or forget
                }
                next = op == OP_RESET ? BucketWord.encode(fp, now) : 0L;
                if (words.compareAndSet(target, old, next)) {
                    return 0;
                }
            }
        }
        if (op == OP_CHARGE) {
            count(CONTENDED);
        }
        return 0;
    }

    /**
     * The theoretical arrival time (microseconds) of the key's bucket as its owner would
     * read it at {@code now}; {@code now} when the key has no bucket. Spends nothing.
     */
    long peekTat(long hash, long tolerance, long now) {
        long fp = BucketWord.fingerprint(hash);
        int group = wordsOffset + (int) (hash & groupMask) * (GROUP * 8);
        int home = (int) (hash >>> 32) & (GROUP - 1);
        for (int i = 0; i < GROUP; i++) {
            long w = words.getVolatile(group + (((home + i) & (GROUP - 1)) << 3));
            if (w != 0 && BucketWord.fingerprintOf(w) == fp) {
                return BucketWord.tat(w, now, tolerance);
            }
        }
        return now;
    }

    // ------------------------------------------------------------------ counters and walks

    private void count(int field) {
        long t = Thread.currentThread().getId() + STRIPE_SALT;
        int stripe = (int) ((t * 0x9E3779B97F4A7C15L) >>> 60);
        words.getAndAdd(countersOffset + stripe * STRIPE_BYTES + field, 1L);
    }

    long counter(int field) {
        long sum = 0;
        for (int s = 0; s < STRIPES; s++) {
            sum += words.getVolatile(countersOffset + s * STRIPE_BYTES + field);
        }
        return sum;
    }

    /** Words holding a live bucket at {@code now}. Walks the whole table. */
    long liveKeys(long now) {
        long n = 0;
        for (int i = 0; i < slots; i++) {
            if (!BucketWord.reclaimable(word(i), now)) {
                n++;
            }
        }
        return n;
    }

    /** The group a hash maps to (tests). */
    int groupIndex(long hash) {
        return (int) (hash & groupMask);
    }

    /** The slot index of a hash's home word (tests). */
    int homeSlot(long hash) {
        return groupIndex(hash) * GROUP + ((int) (hash >>> 32) & (GROUP - 1));
    }

    /** The raw word at slot {@code i} (tests and diagnostics). */
    long word(int i) {
        return words.getVolatile(wordsOffset + (Objects.checkIndex(i, slots) << 3));
    }
}

package org.sluice.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;

/**
 * The rows of a {@link KeyedLimiter}: for each key, one theoretical arrival time per
 * bandwidth ({@link Bands}), in 64 shards, each an open-addressing table (linear
 * probing) behind its own lock. Where {@link BucketTable} charges one word per key with
 * a lock-free CAS, a row here is several words that must be seen and charged as one
 * step, so a charge holds its shard's lock for a few arithmetic operations per
 * bandwidth; calls on keys of different shards never meet.
 *
 * <h2>Layout (one shard)</h2>
 * <pre>
 *   rows [ 6 unused ][ tag | key | tat0 tat1 ][ 0 | . | . . ][ tag | 0 | tat0 tat1 ] ...   w words a slot
 *                      a long key's slot         empty          an object key's slot
 *   keys              [   null               |     null      |   "a" (or byte[]{..})  ] ... made at the first object key
 * </pre>
 * A slot is {@code w} words of one {@code long[]}: its tag, its key when the key is a
 * {@code long}, the row's {@code n} theoretical arrival times, and padding up to {@code
 * w} ({@link #slotWords}: 4 words for one or two bandwidths, 8 for three to six). The tag is 0 for an
 * empty slot, else {@link #USED}, {@link #LONG_KEY} for a {@code long} key and the key's
 * 32-bit hash. So a call on a {@code long} key reads one stretch of one array (the tag
 * that matches, the key beside it and the times beside that, one cache line),
 * where parallel arrays of keys, hashes and times would each cost a miss of their own
 * on a table larger than the cache. An object key also reads its reference in {@code
 * keys}, an array the shard makes only when its first object key comes, so a table of
 * {@code long} keys has none.
 *
 * <p>A key is one of three kinds: a {@code long} (never boxed), a {@code byte[]}
 * (compared and hashed by content; copied once, when its row is made, so the caller may
 * reuse its array), or any other object (its {@code hashCode} and {@code equals}). The
 * hash is a full 64-bit mix of the key ({@link #mix}), so consecutive ids, the common
 * {@code long} key, land on scattered home slots instead of runs that linear probing
 * would have to walk.
 *
 * <h2>Cache lines</h2>
 * On a table larger than the cache, a call costs what its slot costs to fetch: the
 * shard, its lock, the array's header and the bands are the same few lines for every
 * call and stay cached. So a slot is one stretch of 32 or 64 bytes, and the first slot
 * sits {@link #FIRST} words into the array: with compressed class pointers (the default)
 * a {@code long[]}'s element 0 is 16 bytes after its start, so slot 0 starts 64 bytes
 * after it. The JVM aligns objects to only 8 bytes, but G1 (the default collector)
 * starts an array of at least half a region (512 KiB and more in a heap of up to 2 GiB)
 * at a region boundary, so in just the tables that miss the cache every slot then lies
 * within one line. The probe's next slot is often in the same line. Anywhere else the
 * offset costs 48 bytes and changes nothing.
 *
 * <h2>Row states and invariants</h2>
 * A row exists or not; a row full on every bandwidth is the same as no row, and is
 * deleted by {@link #sweep}. All reads and writes of a shard's fields happen under its
 * lock, which is the whole memory-ordering story: no field is read without it.
 * <ol>
 *   <li>A refusal writes nothing a reader sees: no row is made for a refused call (its
 *       times are written into the words of an empty slot, whose tag stays 0).</li>
 *   <li>Per key, a tat never moves back: a sweep deletes a row only when it is full at
 *       the sweep's reading, and a missing row is charged as full from the later of the
 *       call's reading and the latest sweep's ({@link Shard#fullBase}), so a caller with
 *       an older reading than the sweep cannot find more room than the row had.</li>
 *   <li>The load (rows / slots) stays at most 3/4, so a probe ends on an empty slot.
 *       There are no tombstones: a deletion shifts the rest of its probe run back
 *       ({@code Shard.deleteAt}), so a sweep allocates nothing unless it shrinks a table
 *       whose peak since the previous sweep was at most an eighth of its slots.</li>
 * </ol>
 */
final class KeyedTable {

    static final int SHARDS = 64;
    private static final int MIN_CAPACITY = 16;
    private static final int MAX_CAPACITY = 1 << 28;
    /** Tag bit of an occupied slot, so that no tag of a row is 0 (the empty slot). */
    private static final long USED = 1L << 32;
    /** Tag bit of a slot whose key is a {@code long}, kept in the slot's key word. */
    private static final long LONG_KEY = 1L << 33;
    /**
     * Words of {@code rows} before slot 0. Element 0 of a {@code long[]} sits 16 bytes after
     * the array's start, so word 6 sits 64 bytes after it: on a line boundary whenever the
     * array starts on one (see "Cache lines").
     */
    static final int FIRST = 6;
    /** Slots wider than this many words (one 64-byte line) are not padded. */
    private static final int LINE_WORDS = 8;
    /** Word offsets of a slot's fields, counted from {@code rows[0]}: slot {@code i}'s tag is {@code rows[i * width + TAG]}. */
    private static final int TAG = FIRST;
    private static final int KEY = FIRST + 1;
    private static final int TATS = FIRST + 2;

    private final Shard[] shards = new Shard[SHARDS];

    KeyedTable(Bands bands) {
        for (int s = 0; s < SHARDS; s++) {
            shards[s] = new Shard(bands);
        }
    }

    /** The hash of an object key: top 6 bits pick the shard, the low bits the home slot. */
    static int hashOf(Object key) {
        return mix(key instanceof byte[] b ? Arrays.hashCode(b) : key.hashCode());
    }

    static int hashOf(long key) {
        return mix(key);
    }

    /**
     * Every bit of {@code x} moved into every bit of the answer, of which the high 32
     * are kept: two rounds of xor-shift and multiply by an odd constant, then a last
     * xor-shift (MurmurHash3's 64-bit finalizer, which is in the public domain). The single
     * multiply by the golden ratio this replaced left the low bits, which pick the home
     * slot, in step with the top ones, which pick the shard: one million consecutive ids
     * took 6.4 slots a lookup on average, where random homes at that load take 1.5.
     */
    static int mix(long x) {
        long z = (x ^ (x >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return (int) ((z ^ (z >>> 33)) >>> 32);
    }

    /**
     * Words a slot of {@code bandwidths} times takes: tag, key and the times, rounded up
     * to 4 or 8 words (a half or a whole line) while that is at most a line, so that no
     * slot straddles two lines of an aligned array.
     */
    static int slotWords(int bandwidths) {
        int words = 2 + bandwidths;
        return words > LINE_WORDS ? words : Integer.highestOneBit(words - 1) << 1;
    }

    static long tagOf(int hash, boolean longKey) {
        return USED | (longKey ? LONG_KEY : 0L) | (hash & 0xFFFF_FFFFL);
    }

    Shard shard(int hash) {
        return shards[hash >>> 26];
    }

    /** Rows present now, full ones not yet swept included; a moment's snapshot. */
    int size() {
        int n = 0;
        for (Shard s : shards) {
            n += s.size();
        }
        return n;
    }

    /**
     * Slots that finding every row walks past its home slot, summed over the rows: how
     * well the hash spreads the keys (0 when every row sits at its home). A moment's
     * snapshot, for tests.
     */
    long displacement() {
        long n = 0;
        for (Shard s : shards) {
            n += s.displacement();
        }
        return n;
    }

    /** Deletes the rows of shard {@code s} full at {@code now}; returns how many. */
    int sweep(int s, long now) {
        return shards[s & (SHARDS - 1)].sweep(now);
    }

    /** Converts every row to {@code next} at {@code now}, shard by shard. */
    void replace(Bands next, long now, LimitChange change) {
        for (Shard s : shards) {
            s.replace(next, now, change);
        }
    }

    static final class Shard {
        private final Object lock = new Object();
        @GuardedBy("lock")
        private Bands bands;
        /** Words a slot: tag, key, one time per bandwidth. */
        @GuardedBy("lock")
        private int width;
        @GuardedBy("lock")
        private int mask;
        @GuardedBy("lock")
        private long[] rows;
        /** The object key of each object key's slot; null until the shard's first object key. */
        @GuardedBy("lock")
        private Object[] keys;
        @GuardedBy("lock")
        private int size;
        /** The most rows held since the last sweep: a sweep shrinks to this, not to what it leaves. */
        @GuardedBy("lock")
        private int peak;
        /** Latest reading at which a sweep deleted a row; meaningful once {@link #swept} is set. */
        @GuardedBy("lock")
        private long horizon;
        @GuardedBy("lock")
        private boolean swept;

        Shard(Bands bands) {
            synchronized (lock) {
                this.bands = bands;
                allocate(MIN_CAPACITY, false);
            }
        }

        @GuardedBy("lock")
        private void allocate(int capacity, boolean objectKeys) {
            width = slotWords(bands.size());
            if ((long) capacity * width > Integer.MAX_VALUE - 8 - FIRST) {
                throw new IllegalStateException("keyed limiter shard is full: " + size + " rows of " + width + " words");
            }
            mask = capacity - 1;
            rows = new long[FIRST + capacity * width];
            keys = objectKeys ? new Object[capacity] : null;
        }

        /**
         * Charges {@code permits} to the key ({@code key}, or {@code longKey} when {@code
         * key} is null) when the wait is at most {@code maxWait}, and answers the wait.
         * The bands' permit check happens here, under the lock, against the bands the
         * row is charged with.
         */
        long charge(Object key, long longKey, int hash, long permits, long maxWait, long now, Probe probe) {
            synchronized (lock) {
                Bands b = bands;
                b.checkPermits(permits);
                int i = find(key, longKey, hash);
                int off;
                if (i >= 0) {
                    off = i * width + TATS;
                } else {
                    // no row: charge a full one written into the empty slot's words (unread until its tag is set)
                    off = (-1 - i) * width + TATS;
                    b.fill(rows, off, fullBase(now));
                }
                long wait = b.charge(rows, off, permits, maxWait, now);
                if (wait <= maxWait && i < 0) {
                    off = insert(key, longKey, hash, -1 - i) * width + TATS;
                }
                if (probe != null) {
                    long[] row = rows;
                    probe.set(wait == 0L, b.remaining(row, off, now), wait, b.resetNanos(row, off, now));
                }
                return wait;
            }
        }

        long remaining(Object key, long longKey, int hash, long now) {
            synchronized (lock) {
                int i = find(key, longKey, hash);
                if (i < 0) {
                    return bands.maxPermits; // a full row
                }
                return bands.remaining(rows, i * width + TATS, now);
            }
        }

        /** Refills the key's row to full at {@code now}; the sweep deletes it later. */
        void reset(Object key, long longKey, int hash, long now) {
            synchronized (lock) {
                int i = find(key, longKey, hash);
                if (i >= 0) {
                    bands.fill(rows, i * width + TATS, fullBase(now));
                }
            }
        }

        int size() {
            synchronized (lock) {
                return size;
            }
        }

        long displacement() {
            synchronized (lock) {
                long n = 0;
                for (int i = 0; i <= mask; i++) {
                    long tag = rows[i * width + TAG];
                    if (tag != 0L) {
                        n += (i - (int) tag) & mask;
                    }
                }
                return n;
            }
        }

        @GuardedBy("lock")
        private long fullBase(long now) {
            return swept && horizon - now > 0 ? horizon : now;
        }

        /** The slot of the key, or {@code -1 - slot} of the empty slot that ends its probe. */
        @GuardedBy("lock")
        private int find(Object key, long longKey, int hash) {
            long[] rs = rows;
            int w = width;
            int m = mask;
            long want = tagOf(hash, key == null);
            for (int i = hash & m; ; i = (i + 1) & m) {
                long t = rs[i * w + TAG];
                if (t == 0L) {
                    return -1 - i;
                }
                if (t == want && (key == null ? rs[i * w + KEY] == longKey : sameKey(keys[i], key))) {
                    return i;
                }
            }
        }

        private static boolean sameKey(Object stored, Object key) {
            if (stored == key) {
                return true;
            }
            if (stored instanceof byte[] a) {
                return key instanceof byte[] b && Arrays.equals(a, b);
            }
            return stored.equals(key);
        }

        /**
         * Makes the row of a new key in empty slot {@code slot}, whose times the charge
         * already wrote; grows the table first when the load would pass 3/4 (the row moves
         * with it). Returns the row's slot.
         */
        @GuardedBy("lock")
        private int insert(Object key, long longKey, int hash, int slot) {
            int at = slot * width;
            rows[at + TAG] = tagOf(hash, key == null);
            if (key == null) {
                rows[at + KEY] = longKey;
            } else {
                if (keys == null) {
                    keys = new Object[mask + 1];
                }
                keys[slot] = key instanceof byte[] b ? b.clone() : key;
            }
            size++;
            peak = Math.max(peak, size);
            if (size > mask + 1 - ((mask + 1) >>> 2)) {
                rebuild(bands, (mask + 1) * 2, 0L, null);
                return find(key, longKey, hash);
            }
            return slot;
        }

        /**
         * Deletes, in place, every row full on every bandwidth at {@code now} (each
         * deletion shifts the rest of its probe run back, see {@link #deleteAt}); rebuilds
         * smaller only when the most rows held since the previous sweep filled at most an
         * eighth of the slots. Returns rows deleted.
         */
        int sweep(long now) {
            synchronized (lock) {
                int w = width;
                int deleted = 0;
                for (int i = 0; i <= mask; i++) {
                    // a deletion may shift a row the sweep has not seen into slot i: look at i again
                    while (rows[i * w + TAG] != 0L && bands.isFull(rows, i * w + TATS, now)) {
                        deleteAt(i);
                        deleted++;
                    }
                }
                if (deleted > 0) {
                    size -= deleted;
                    if (!swept || now - horizon > 0) {
                        horizon = now;
                        swept = true;
                    }
                }
                // shrink to what the last interval needed at its peak, so rows that refill
                // between sweeps and come back do not grow the arrays again every interval
                if (mask + 1 > MIN_CAPACITY && peak <= (mask + 1) >>> 3) {
                    rebuild(bands, capacityFor(peak), 0L, null);
                }
                peak = size;
                return deleted;
            }
        }

        /**
         * Empties slot {@code gap} without a tombstone (backward-shift deletion): each
         * later row of the same probe run whose home slot does not lie cyclically in
         * {@code (gap, slot]} moves back into the gap, which moves forward to where it
         * was, until an empty slot ends the run. Every row stays reachable from its home
         * slot by an unbroken run, which is all {@link #find} needs. Rows only move to
         * slots at or after the first gap (cyclically), so a sweep walking forward sees
         * each remaining row at least once.
         */
        @GuardedBy("lock")
        private void deleteAt(int gap) {
            int m = mask;
            int w = width;
            for (int j = (gap + 1) & m; rows[j * w + TAG] != 0L; j = (j + 1) & m) {
                int home = (int) rows[j * w + TAG] & m;
                boolean staysPut = gap <= j ? gap < home && home <= j : gap < home || home <= j;
                if (!staysPut) {
                    System.arraycopy(rows, j * w + FIRST, rows, gap * w + FIRST, w);
                    if (keys != null) {
                        keys[gap] = keys[j];
                    }
                    gap = j;
                }
            }
            rows[gap * w + TAG] = 0L;
            if (keys != null) {
                keys[gap] = null;
            }
        }

        void replace(Bands next, long now, LimitChange change) {
            synchronized (lock) {
                rebuild(next, mask + 1, now, change);
            }
        }

        /**
         * Copies the rows into a fresh table of {@code capacity} slots for {@code next},
         * converting each under {@code change} at {@code now} when the bands change
         * ({@code change} null: copied as they are).
         */
        @GuardedBy("lock")
        private void rebuild(Bands next, int capacity, long now, LimitChange change) {
            Bands old = bands;
            long[] oldRows = rows;
            Object[] oldKeys = keys;
            int oldWidth = width;
            int oldSlots = mask + 1;
            bands = next;
            allocate(capacity, oldKeys != null);
            size = 0;
            int m = mask;
            int w = width;
            for (int s = 0; s < oldSlots; s++) {
                long tag = oldRows[s * oldWidth + TAG];
                if (tag == 0L) {
                    continue;
                }
                int i = (int) tag & m;
                while (rows[i * w + TAG] != 0L) {
                    i = (i + 1) & m;
                }
                rows[i * w + TAG] = tag;
                rows[i * w + KEY] = oldRows[s * oldWidth + KEY];
                if (oldKeys != null) {
                    keys[i] = oldKeys[s];
                }
                if (change == null) {
                    System.arraycopy(oldRows, s * oldWidth + TATS, rows, i * w + TATS, old.size()); // next == old
                } else {
                    next.convert(old, oldRows, s * oldWidth + TATS, rows, i * w + TATS, now, change);
                }
                size++;
            }
        }

        private static int capacityFor(int rows) {
            long want = Math.max((long) MIN_CAPACITY, 2L * rows);
            if (want > MAX_CAPACITY) {
                throw new IllegalStateException("keyed limiter shard is full: " + rows + " rows");
            }
            return Integer.highestOneBit((int) want - 1) << 1;
        }
    }
}

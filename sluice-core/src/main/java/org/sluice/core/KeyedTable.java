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
 *   keys     [ "a"  | null | LONG  | byte[]{..} | ... ]   null = empty slot
 *   longKeys [  0   |  0   | 42    |  0         | ... ]   the key of a LONG slot
 *   hashes   [ h_a  |  0   | h_42  | h_b        | ... ]   the mixed hash, probed before equals
 *   tats     [ a0 a1 | . . | t0 t1 | b0 b1      | ... ]   n words per slot, n = bandwidths
 * </pre>
 * A key is one of three kinds: a {@code long} (kept in {@code longKeys}, the slot's key
 * being the marker {@code LONG}, so a long key is never boxed), a {@code byte[]}
 * (compared and hashed by content; copied once, when its row is made, so the caller may
 * reuse its array), or any other object (its {@code hashCode} and {@code equals}).
 *
 * <h2>Row states and invariants</h2>
 * A row exists or not; a row full on every bandwidth is the same as no row, and is
 * deleted by {@link #sweep}. All reads and writes of a shard's fields happen under its
 * lock, which is the whole memory-ordering story: no field is read without it.
 * <ol>
 *   <li>A refusal writes nothing: no row is made for a refused call.</li>
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
    private static final long SPREAD = 0x9E3779B97F4A7C15L;
    /** The key of a slot whose key is a {@code long}, kept in {@code longKeys}. */
    private static final Object LONG = new Object();

    private final Shard[] shards = new Shard[SHARDS];

    KeyedTable(Bands bands) {
        for (int s = 0; s < SHARDS; s++) {
            shards[s] = new Shard(bands);
        }
    }

    /** The mixed hash of an object key: top 6 bits pick the shard, the low bits the home slot. */
    static int hashOf(Object key) {
        int h = key instanceof byte[] b ? Arrays.hashCode(b) : key.hashCode();
        return (int) ((h * SPREAD) >>> 32);
    }

    static int hashOf(long key) {
        return (int) (((key ^ (key >>> 32)) * SPREAD) >>> 32);
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
        @GuardedBy("lock")
        private Object[] keys;
        @GuardedBy("lock")
        private long[] longKeys;
        @GuardedBy("lock")
        private int[] hashes;
        @GuardedBy("lock")
        private long[] tats;
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
                allocate(MIN_CAPACITY);
            }
        }

        @GuardedBy("lock")
        private void allocate(int capacity) {
            keys = new Object[capacity];
            longKeys = new long[capacity];
            hashes = new int[capacity];
            tats = new long[capacity * bands.size()];
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
                long[] row = tats;
                int off;
                if (i >= 0) {
                    off = i * b.size();
                } else {
                    // no row: charge a full one written into the empty slot's words (unused until a key is put there)
                    off = (-1 - i) * b.size();
                    b.fill(row, off, fullBase(now));
                }
                long wait = b.charge(row, off, permits, maxWait, now);
                if (wait <= maxWait && i < 0) {
                    off = insert(key, longKey, hash, -1 - i) * b.size();
                    row = tats;
                }
                if (probe != null) {
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
                return bands.remaining(tats, i * bands.size(), now);
            }
        }

        /** Refills the key's row to full at {@code now}; the sweep deletes it later. */
        void reset(Object key, long longKey, int hash, long now) {
            synchronized (lock) {
                int i = find(key, longKey, hash);
                if (i >= 0) {
                    bands.fill(tats, i * bands.size(), fullBase(now));
                }
            }
        }

        int size() {
            synchronized (lock) {
                return size;
            }
        }

        @GuardedBy("lock")
        private long fullBase(long now) {
            return swept && horizon - now > 0 ? horizon : now;
        }

        /** The slot of the key, or {@code -1 - slot} of the empty slot that ends its probe. */
        @GuardedBy("lock")
        private int find(Object key, long longKey, int hash) {
            int m = keys.length - 1;
            for (int i = hash & m; ; i = (i + 1) & m) {
                Object k = keys[i];
                if (k == null) {
                    return -1 - i;
                }
                if (hashes[i] == hash && (key == null ? k == LONG && longKeys[i] == longKey : sameKey(k, key))) {
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
            return stored != LONG && stored.equals(key);
        }

        /**
         * Makes the row of a new key in empty slot {@code slot}, whose words the charge
         * already wrote; grows the arrays first when the load would pass 3/4 (the words
         * move with it). Returns the row's slot.
         */
        @GuardedBy("lock")
        private int insert(Object key, long longKey, int hash, int slot) {
            keys[slot] = key == null ? LONG : key instanceof byte[] b ? b.clone() : key;
            longKeys[slot] = longKey;
            hashes[slot] = hash;
            size++;
            peak = Math.max(peak, size);
            if (size > keys.length - (keys.length >>> 2)) {
                rebuild(bands, keys.length * 2, 0L, null);
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
                int n = bands.size();
                int deleted = 0;
                for (int i = 0; i < keys.length; i++) {
                    // a deletion may shift a row the sweep has not seen into slot i: look at i again
                    while (keys[i] != null && bands.isFull(tats, i * n, now)) {
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
                if (keys.length > MIN_CAPACITY && peak <= keys.length >>> 3) {
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
            int m = keys.length - 1;
            int n = bands.size();
            for (int j = (gap + 1) & m; keys[j] != null; j = (j + 1) & m) {
                int home = hashes[j] & m;
                boolean staysPut = gap <= j ? gap < home && home <= j : gap < home || home <= j;
                if (!staysPut) {
                    keys[gap] = keys[j];
                    longKeys[gap] = longKeys[j];
                    hashes[gap] = hashes[j];
                    System.arraycopy(tats, j * n, tats, gap * n, n);
                    gap = j;
                }
            }
            keys[gap] = null;
        }

        void replace(Bands next, long now, LimitChange change) {
            synchronized (lock) {
                rebuild(next, keys.length, now, change);
            }
        }

        /**
         * Copies the rows into fresh arrays of {@code capacity} slots for {@code next},
         * converting each under {@code change} at {@code now} when the bands change
         * ({@code change} null: copied as they are).
         */
        @GuardedBy("lock")
        private void rebuild(Bands next, int capacity, long now, LimitChange change) {
            Bands old = bands;
            Object[] oldKeys = keys;
            long[] oldLongKeys = longKeys;
            int[] oldHashes = hashes;
            long[] oldTats = tats;
            bands = next;
            allocate(capacity);
            size = 0;
            int m = capacity - 1;
            int from = old.size();
            int to = next.size();
            for (int s = 0; s < oldKeys.length; s++) {
                if (oldKeys[s] == null) {
                    continue;
                }
                int i = oldHashes[s] & m;
                while (keys[i] != null) {
                    i = (i + 1) & m;
                }
                keys[i] = oldKeys[s];
                longKeys[i] = oldLongKeys[s];
                hashes[i] = oldHashes[s];
                if (change == null) {
                    System.arraycopy(oldTats, s * from, tats, i * to, to);
                } else {
                    next.convert(old, oldTats, s * from, tats, i * to, now, change);
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

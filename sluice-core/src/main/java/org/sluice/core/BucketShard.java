package org.sluice.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One of the sixteen shards of a {@link BucketTable}: an open-addressing hash table
 * (linear probing) whose rows are a tag word and a bucket word side by side in one
 * {@code long[]}, with the key reference in a parallel {@code String[]}. The algorithm,
 * row states and memory ordering are stated in {@link BucketTable}'s class comment; this
 * class is its implementation.
 *
 * <p>Field ownership: {@link #table} is replaced and {@link #used}, {@link #dead},
 * {@link #live}, {@link #horizon} are written only while {@link #lock} is held. Words
 * of live rows are changed lock-free by {@link #chargeSlot}, and by nothing else
 * outside the lock. Error Prone checks this: every one of those fields is
 * {@code @GuardedBy("lock")}, and the two read lock-free ({@link #table} by chargers and
 * readers, {@link #live} by {@link BucketTable#size}) are read outside the lock only through
 * {@link #published()} and {@link #live()}.
 */
final class BucketShard {

    // ------------------------------------------------------------------ word encoding

    /** Word of a row the sweep (or a reset) deleted: logically absent, a full bucket. */
    static final long DEAD = Long.MIN_VALUE;
    /** Word of a row whose table was retired: its value lives in the shard's current table. */
    static final long MOVED = Long.MIN_VALUE + 1;
    /** Returned by {@link #chargeSlot} when the word is DEAD or MOVED: retry under the lock. */
    static final long NEEDS_LOCK = -1L;

    /**
     * A charge's answer when admitted: {@code -2 - room}, with {@code room} the
     * tolerance left after the charge ({@code tau - (tat - now)}, from 0 to {@code tau}),
     * so that every admission is below {@link #NEEDS_LOCK} and every refusal (a wait) is
     * above 0. {@link BucketTable} turns it into 0 for its public answer.
     */
    static long admitted(long room) {
        return -2L - room;
    }

    /** The {@code room} of an {@link #admitted(long)} answer. */
    static long roomOf(long admitted) {
        return -2L - admitted;
    }

    static final int MIN_CAPACITY = 16;
    static final int MAX_CAPACITY = 1 << 28;

    private static final long SPREAD = 0x9E3779B97F4A7C15L;
    /** Every access to {@link Table#rows}: tags and words. */
    private static final VarHandle ROWS = MethodHandles.arrayElementVarHandle(long[].class);

    /** The mixed hash: bits 60..63 pick the shard, bits 28..59 the home slot. */
    static long mix(int hash) {
        return hash * SPREAD;
    }

    static int home(long mixed) {
        return (int) (mixed >>> 28);
    }

    static int shardOf(long mixed) {
        return (int) (mixed >>> 60);
    }

    /**
     * A theoretical arrival time as a word. The two reserved values (the two smallest
     * longs) are never a tat: such a tat is moved up to {@code MOVED + 1}, at most 2 ns
     * later, which only ever refuses sooner, never admits more.
     */
    static long tatWord(long tat) {
        return tat <= MOVED ? MOVED + 1 : tat;
    }

    // ------------------------------------------------------------------ the arrays

    /** Tag of an occupied slot: a set bit 32 (so never 0, the empty tag) over the key's hash. */
    static long tag(int hash) {
        return 0x1_0000_0000L | (hash & 0xFFFF_FFFFL);
    }

    /** Index in {@link Table#rows} of slot {@code i}'s tag; its word is the next element. */
    static int tagAt(int i) {
        return i << 1;
    }

    static int wordAt(int i) {
        return (i << 1) + 1;
    }

    /**
     * One generation of a shard's arrays. A slot's key and tag are written at most once
     * per Table. A slot's tag and word share 16 bytes of {@code rows} (one cache line), so a
     * probe that ends on the key touches that line and the key reference, nothing else.
     */
    static final class Table {
        /** Per slot: {@code rows[2i]} the tag (0 = empty), {@code rows[2i+1]} the word. */
        final long[] rows;
        final String[] keys;
        final int mask;
        /** Most slots that may hold a key (live or dead): 3/4 of the capacity. */
        final int threshold;

        Table(int capacity) {
            rows = new long[2 * capacity];
            keys = new String[capacity];
            mask = capacity - 1;
            threshold = capacity - (capacity >>> 2);
        }

        /** Slot of {@code key}, or -1 when this table has no slot for it. Lock-free. */
        int find(String key, int hash, int home) {
            long[] rs = rows;
            long want = tag(hash);
            int m = mask;
            for (int i = home & m; ; i = (i + 1) & m) {
                long t = (long) ROWS.getAcquire(rs, tagAt(i));
                if (t == 0L) {
                    return -1;
                }
                if (t == want) {
                    String k = keys[i]; // written before the tag's release: visible
                    if (k == key || k.equals(key)) {
                        return i;
                    }
                }
            }
        }

        /** Writes a new row into a free slot. Caller holds the lock (or owns an unpublished table). */
        void put(String key, int hash, long word) {
            int i = home(mix(hash)) & mask;
            while (rows[tagAt(i)] != 0L) {
                i = (i + 1) & mask;
            }
            keys[i] = key;
            ROWS.setRelease(rows, wordAt(i), word);
            ROWS.setRelease(rows, tagAt(i), tag(hash)); // publishes key and word to lock-free readers
        }

        int capacity() {
            return keys.length;
        }
    }

    /**
     * Test seam: called by the sweep between reading a full word and its CAS to DEAD,
     * so a test can land a charge exactly in that window. Null in production.
     */
    interface SweepProbe {
        void beforeDelete(String key);
    }

    private final SweepProbe probe;
    private final ReentrantLock lock = new ReentrantLock();
    /** Replaced under the lock; read lock-free through {@link #published()}. */
    @GuardedBy("lock")
    private volatile Table table;
    /** Rows whose word is neither DEAD nor MOVED (volatile so size() can read it unlocked). */
    @GuardedBy("lock")
    private volatile int live;
    /** Slots of {@link #table} holding a key, live or dead. */
    @GuardedBy("lock")
    private int used;
    /** Slots of {@link #table} whose word is DEAD. */
    @GuardedBy("lock")
    private int dead;
    /** Latest {@code now} at which a sweep deleted a row; meaningful once {@link #swept} is set. */
    @GuardedBy("lock")
    private long horizon;
    @GuardedBy("lock")
    private boolean swept;

    BucketShard(int capacity, SweepProbe probe) {
        this.table = new Table(capacity);
        this.probe = probe;
    }

    /**
     * The current table, read without the lock: the one lock-free read of {@link #table}.
     * Its volatile read pairs with the volatile write that publishes a rebuilt table, and a
     * reader holding a retired table finds MOVED words and retries under the lock.
     */
    @SuppressWarnings("GuardedBy") // lock-free by design: see the method comment
    private Table published() {
        return table;
    }

    // ------------------------------------------------------------------ charge

    /**
     * The one CAS-retry loop: charge a live word ({@code rows[w]}), or say the lock is
     * needed. Answers the wait (positive) when refused, {@link #NEEDS_LOCK}, or {@link
     * #admitted(long) admitted(room)} when admitted.
     */
    static long chargeSlot(long[] rows, int w0, long increment, long tolerance, long now) {
        long w = (long) ROWS.getVolatile(rows, w0);
        for (;;) {
            if (w <= MOVED) {
                return NEEDS_LOCK;
            }
            long wait = Gcra.waitNanos(w, now, increment, tolerance);
            if (wait != 0L) {
                return wait;
            }
            long tat = Gcra.admittedTat(w, now, increment, tolerance);
            long next = tatWord(tat);
            long seen = (long) ROWS.compareAndExchange(rows, w0, w, next);
            if (seen == w) {
                return admitted(tolerance - (tat - now));
            }
            w = seen;
        }
    }

    /** Charges {@code key}: 0 when admitted, else the wait (at least 1). */
    long charge(String key, int hash, int home, long increment, long tolerance, long now) {
        long r = chargeWithRoom(key, hash, home, increment, tolerance, now);
        return r < 0 ? 0L : r;
    }

    /** {@link #charge}, answering an admission as {@link #admitted(long)} instead of 0. */
    long chargeWithRoom(String key, int hash, int home, long increment, long tolerance, long now) {
        Table t = published();
        int i = t.find(key, hash, home);
        if (i >= 0) {
            long r = chargeSlot(t.rows, wordAt(i), increment, tolerance, now);
            if (r != NEEDS_LOCK) {
                return r;
            }
        }
        return chargeLocked(key, hash, home, increment, tolerance, now);
    }

    /** Slow path: a new key, a swept row, or a retired table. */
    private long chargeLocked(String key, int hash, int home, long increment, long tolerance, long now) {
        lock.lock();
        try {
            Table t = table;
            int i = t.find(key, hash, home);
            if (i >= 0) {
                long r = chargeSlot(t.rows, wordAt(i), increment, tolerance, now);
                if (r != NEEDS_LOCK) {
                    return r;
                }
                // DEAD: only lock holders change a DEAD word, and MOVED never appears in the current table.
            }
            long base = fullBase(now);
            long wait = Gcra.waitNanos(base, now, increment, tolerance);
            if (wait != 0L) {
                return wait;
            }
            long tat = Gcra.admittedTat(base, now, increment, tolerance);
            long word = tatWord(tat);
            if (i >= 0) {
                ROWS.setVolatile(t.rows, wordAt(i), word);
                dead--;
            } else {
                if (used + 1 > t.threshold) {
                    t = rebuild(live + 1);
                }
                t.put(key, hash, word);
                used++;
            }
            addLive(1);
            return admitted(tolerance - (tat - now));
        } finally {
            lock.unlock();
        }
    }

    /**
     * The tat of a bucket that has no row: {@code now}, or the last sweep's time if a
     * charger's reading is older than it (a deleted row had {@code tat <= horizon}, so
     * this keeps every key's tat from ever moving back). Caller holds the lock.
     */
    @GuardedBy("lock")
    private long fullBase(long now) {
        return swept && horizon - now > 0 ? horizon : now;
    }

    /** The one read-modify-write of {@link #live}: not atomic, and need not be, as only lock holders write it. */
    @GuardedBy("lock")
    @SuppressWarnings("NonAtomicVolatileUpdate") // every writer holds the lock; volatile is for unlocked readers
    private void addLive(int delta) {
        live += delta;
    }

    // ------------------------------------------------------------------ read, reset

    double remaining(String key, int hash, int home, long intervalNanos, long tolerance, long now) {
        Table t = published();
        int i = t.find(key, hash, home);
        if (i >= 0) {
            long w = (long) ROWS.getVolatile(t.rows, wordAt(i));
            if (w > MOVED) {
                return Gcra.remaining(w, now, intervalNanos, tolerance);
            }
        }
        lock.lock();
        try {
            t = table;
            i = t.find(key, hash, home);
            long w = i >= 0 ? (long) ROWS.getVolatile(t.rows, wordAt(i)) : DEAD;
            long tat = w > MOVED ? w : fullBase(now);
            return Gcra.remaining(tat, now, intervalNanos, tolerance);
        } finally {
            lock.unlock();
        }
    }

    void reset(String key, int hash, int home) {
        lock.lock();
        try {
            Table t = table;
            int i = t.find(key, hash, home);
            if (i >= 0 && (long) ROWS.getAndSet(t.rows, wordAt(i), DEAD) != DEAD) {
                dead++;
                addLive(-1);
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ sweep, rebuild

    /** Deletes every row full at {@code now}; compacts when a quarter of the slots are dead. */
    int sweep(long now) {
        lock.lock();
        try {
            Table t = table;
            String[] keys = t.keys;
            long[] rows = t.rows;
            int removed = 0;
            for (int i = 0; i < keys.length; i++) {
                if (rows[tagAt(i)] == 0L) {
                    continue;
                }
                long w = (long) ROWS.getVolatile(rows, wordAt(i));
                if (w > MOVED && Gcra.isFull(w, now)) {
                    if (probe != null) {
                        probe.beforeDelete(keys[i]);
                    }
                    // One attempt: a charger that wins the race leaves a live row for the next cycle.
                    if (ROWS.compareAndSet(rows, wordAt(i), w, DEAD)) {
                        removed++;
                    }
                }
            }
            if (removed > 0) {
                dead += removed;
                addLive(-removed);
                if (!swept || now - horizon > 0) {
                    horizon = now;
                    swept = true;
                }
            }
            if (dead > 0 && dead >= used >>> 2) {
                rebuild(live + 1);
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Copies the live rows into a new table sized for {@code rowsNeeded} at load at most
     * 1/2, freezing each old word with an atomic swap to MOVED, then publishes it.
     * Caller holds the lock.
     */
    @GuardedBy("lock")
    private Table rebuild(int rowsNeeded) {
        Table old = table;
        Table next = new Table(capacityFor(rowsNeeded));
        String[] keys = old.keys;
        long[] rows = old.rows;
        int n = 0;
        for (int i = 0; i < keys.length; i++) {
            long tag = rows[tagAt(i)];
            if (tag == 0L) {
                continue;
            }
            long w = (long) ROWS.getAndSet(rows, wordAt(i), MOVED);
            if (w != DEAD) {
                next.put(keys[i], (int) tag, w);
                n++;
            }
        }
        table = next; // volatile write: publishes the copied rows
        used = n;
        dead = 0;
        live = n;
        return next;
    }

    static int capacityFor(int rows) {
        long want = Math.max((long) MIN_CAPACITY, 2L * rows);
        if (want > MAX_CAPACITY) {
            throw new IllegalStateException("bucket table shard is full: " + rows + " rows");
        }
        return Integer.highestOneBit((int) want - 1) << 1;
    }

    // ------------------------------------------------------------------ introspection

    /** Live rows, read without the lock (a volatile read: exact once writers are quiet). */
    @SuppressWarnings("GuardedBy") // lock-free by design: live is volatile and only written under the lock
    int live() {
        return live;
    }

    int capacity() {
        return published().capacity();
    }
}

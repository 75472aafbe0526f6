package org.sluice.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many keyed GCRA buckets in one table. The policy (increment and tolerance, see {@link
 * Gcra}) is passed with each call, so keys with different limits can share a table.
 * Charges on existing rows are lock-free and allocate nothing; a sweep deletes full
 * rows so that a flood of invented keys cannot grow memory without bound.
 *
 * <h2>Layout</h2>
 * Sixteen shards, chosen by the top four bits of the mixed key hash. A shard is an
 * open-addressing table with linear probing whose rows live inline in two parallel
 * arrays (no object per row). Slot {@code i}'s tag and word sit side by side in one
 * {@code long[]}, 16 bytes that never straddle a cache line when the array is 16-byte
 * aligned (large arrays are), and its key in a {@code String[]}:
 * <pre>
 *   shard.table ──► Table
 *                   rows  [ tag_a | tat  | 0 | 0 | tag_q | DEAD | tag_x | MOVED | ... ]
 *                           └─ slot 0 ──┘  └ 1 ┘  └── slot 2 ──┘  └── slot 3 ───┘
 *                   keys  [ "a"   |  null |  "q"   |  "x"   | ... ]  written once per slot
 *
 *   tag = 1 &lt;&lt; 32 | (String.hashCode &amp; 0xFFFFFFFF): never 0, so 0 marks an empty slot
 * </pre>
 * A lookup probes the tags from the key's home slot until it finds an equal tag whose
 * key is the key (identity first, then {@code equals}) or an empty tag. A hit on a
 * known key thus reads one line of {@code rows} (tag, then the word it charges) and one
 * key reference: one cache miss fewer than three arrays would cost. The load (slots
 * holding a key, live or dead) is kept at most 3/4, so a probe always ends.
 *
 * <h2>Row states (the word of a slot that holds a key)</h2>
 * <ul>
 *   <li><b>tat</b> (any value but the two below): a live bucket; full when {@code tat
 *       <= now}, which is the same as no row at all.</li>
 *   <li><b>DEAD</b> ({@code Long.MIN_VALUE}): deleted by a sweep or a reset. Logically
 *       absent; the key stays in the slot as a tombstone until the next rebuild.</li>
 *   <li><b>MOVED</b> ({@code Long.MIN_VALUE + 1}): this table was retired; the row (if it
 *       was live) is in the shard's current table. Terminal.</li>
 * </ul>
 * Transitions: {@code tat -> tat'} by a charge (CAS, lock-free); {@code tat -> DEAD} by
 * the sweep when {@code tat <= now} (CAS, under the shard lock) or by reset (swap,
 * under the lock); {@code DEAD -> tat} by a charge that found the row deleted (under
 * the lock); {@code any -> MOVED} by a rebuild (swap, under the lock).
 *
 * <h2>Algorithm</h2>
 * <ul>
 *   <li>Charge: find the slot in the current table lock-free and run the one CAS loop
 *       ({@code BucketShard.chargeSlot}) on its word. If the key is missing, or the word
 *       is DEAD or MOVED, take the shard lock, look again in the (now stable) current
 *       table and revive the row, insert it (rebuilding first if the table is at its
 *       load threshold), or charge it.</li>
 *   <li>Sweep (one shard per call, in turn): under the lock, CAS each full tat to DEAD
 *       with one attempt; then, if a quarter of the used slots are dead, rebuild.</li>
 *   <li>Rebuild (under the lock): swap every old word to MOVED, copy the ones that
 *       were not DEAD into a new table sized for the live rows at load 1/2, publish it.
 *       Grows on insert, shrinks after sweeps.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>Within one Table a slot's key is written at most once and never cleared, so a
 *       slot found for a key stays that key's slot in that Table.</li>
 *   <li>Outside the lock a word changes only from a tat to a tat; DEAD and MOVED are
 *       written, and DEAD is left, only under the lock; MOVED is never left.</li>
 *   <li><b>No lost charge.</b> A charge is one successful CAS from the value it read.
 *       The sweep and the rebuild change a word only by CAS or atomic swap, so either the
 *       charge's CAS lands first (the sweep's CAS then fails, or the rebuild's swap
 *       returns the charged value and copies it) or the charge's CAS fails, re-reads
 *       DEAD or MOVED and retries under the lock against the current table.</li>
 *   <li>A denial writes nothing: the CAS loop returns the wait before any write.</li>
 *   <li>Per key, the tat never moves back: a row is only deleted when {@code tat <= now}
 *       of the sweep, and a missing row is charged as full from {@code max(now,
 *       latest sweep time)} (equal to {@code now} for any fresh clock reading).</li>
 * </ol>
 *
 * <h2>Memory ordering</h2>
 * {@code shard.table} is volatile: a rebuild fills the new arrays with plain or release
 * writes and publishes them with that volatile write. A new row's key and word are
 * written before its tag, and the tag with release; readers read the tag with acquire,
 * so a tag seen implies its key and first word are visible. Words are only read with volatile reads
 * and changed by CAS or swap (volatile semantics). The counters are written under the
 * lock; {@code live} is volatile so {@link #size()} can read it without the lock (a
 * moment's snapshot).
 */
public final class BucketTable {

    private static final int SHARDS = 16;

    private final BucketShard[] shards = new BucketShard[SHARDS];
    private final AtomicInteger sweepCursor = new AtomicInteger();
    private final LongAdder swept = new LongAdder();

    public BucketTable() {
        this(0);
    }

    /** @param initialCapacityHint rows expected across all shards; 0 for the minimum */
    public BucketTable(int initialCapacityHint) {
        this(initialCapacityHint, null);
    }

    BucketTable(int initialCapacityHint, BucketShard.SweepProbe probe) {
        if (initialCapacityHint < 0) {
            throw new IllegalArgumentException("initialCapacityHint must be at least 0, got " + initialCapacityHint);
        }
        int perShard = BucketShard.capacityFor((int) ((initialCapacityHint + SHARDS - 1L) / SHARDS));
        for (int s = 0; s < SHARDS; s++) {
            shards[s] = new BucketShard(perShard, probe);
        }
    }

    /**
     * Charges {@code increment} ns to {@code key}'s bucket with the given tolerance at
     * {@code now}: 0 when admitted (the bucket's tat advanced), else the wait in ns
     * (at least 1) and nothing written. See {@link Gcra} for the arithmetic.
     *
     * @throws IllegalArgumentException if {@code increment} or {@code tolerance} is negative
     */
    public long tryCharge(String key, long increment, long tolerance, long now) {
        return tryCharge(key, key.hashCode(), increment, tolerance, now);
    }

    /**
     * {@link #tryCharge(String, long, long, long)} with {@code hash}, which must be
     * {@code key.hashCode()}, read by the caller: a limiter reads it before its clock (see
     * {@link RateLimiter}'s class comment, "The key before the clock").
     */
    long tryCharge(String key, int hash, long increment, long tolerance, long now) {
        long r = chargeWithRoom(key, hash, increment, tolerance, now);
        return r < 0 ? 0L : r;
    }

    /**
     * {@link #tryCharge(String, int, long, long, long)}, answering an admission as {@code
     * BucketShard.admitted(room)} (negative; {@code BucketShard.roomOf} gives the tolerance
     * left after the charge, in ns) instead of 0; a refusal is the wait, as there.
     */
    long chargeWithRoom(String key, int hash, long increment, long tolerance, long now) {
        if ((increment | tolerance) < 0) {
            throw negativePolicy(increment, tolerance);
        }
        long m = BucketShard.mix(hash);
        return shards[BucketShard.shardOf(m)].chargeWithRoom(key, hash, BucketShard.home(m), increment, tolerance, now);
    }

    private static IllegalArgumentException negativePolicy(long increment, long tolerance) {
        return increment < 0
                ? new IllegalArgumentException("increment must be at least 0, got " + increment)
                : new IllegalArgumentException("tolerance must be at least 0, got " + tolerance);
    }

    /** Units of {@code intervalNanos} that could be admitted now, fractional; full for a missing key. */
    public double remaining(String key, long intervalNanos, long tolerance, long now) {
        int h = key.hashCode();
        long m = BucketShard.mix(h);
        return shards[BucketShard.shardOf(m)].remaining(key, h, BucketShard.home(m), intervalNanos, tolerance, now);
    }

    /** Refills {@code key}'s bucket to full by deleting its row. */
    public void reset(String key) {
        int h = key.hashCode();
        long m = BucketShard.mix(h);
        shards[BucketShard.shardOf(m)].reset(key, h, BucketShard.home(m));
    }

    /** Rows present (full rows not yet swept included); a moment's snapshot under concurrency. */
    public int size() {
        int n = 0;
        for (BucketShard s : shards) {
            n += s.live();
        }
        return n;
    }

    /** Number of shards, 16: a full sweep cycle is this many calls of {@link #sweepNext}. */
    public int shards() {
        return SHARDS;
    }

    /** Sweeps the next shard in turn, deleting rows whose tat is at or before {@code now}; returns how many. */
    public int sweepNext(long now) {
        int s = sweepCursor.getAndIncrement() & (SHARDS - 1);
        int removed = shards[s].sweep(now);
        if (removed > 0) {
            swept.add(removed);
        }
        return removed;
    }

    /** Rows deleted by sweeps since creation. */
    public long swept() {
        return swept.sum();
    }

    /** Slots allocated across all shards (for tests and memory accounting). */
    long capacity() {
        long n = 0;
        for (BucketShard s : shards) {
            n += s.capacity();
        }
        return n;
    }
}

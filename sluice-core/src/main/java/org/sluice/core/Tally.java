package org.sluice.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * Exact counts of a limiter's two outcomes (admitted, denied), each kept by the thread
 * that decided it with a plain add and summed when read: no atomic read-modify-write on
 * the decision path.
 *
 * <h2>Layout</h2>
 * A fixed number of slots (a power of two); a thread's slot is its id modulo that number
 * (ids are handed out in sequence, so live threads rarely share one). Each slot has an
 * owner and two counts, alone on their own 128 bytes (two cache lines, so neither a
 * neighbour's writes nor the adjacent-line prefetcher pull the line away):
 * <pre>
 *   owners   [ Thread | null | Thread | ... ]                      one per slot
 *   counts   [ pad x16 | adm den until epoch pad x12 | adm den ... | ... | pad x16 ]
 *                        └──────── slot 0 ─────────┘  └ slot 1 ...
 *   memoKeys [ pad x16 | key pad x15               | key ...     | ... | pad x16 ]
 * </pre>
 * {@code until}, {@code epoch} and {@code key} are the slot's <b>refusal memo</b>, kept
 * here because the limiter finds the thread's slot on every call anyway: the last key the
 * owner saw refused, the first clock reading at which the table could admit it, and the
 * limiter's reset count when it was refused. {@code RateLimiter} (its class comment says
 * why a memo stays true) answers a repeated refusal from it without reading the table.
 * Only the owner reads or writes a memo, with plain accesses; {@link #reclaim} clears it
 * with the counts.
 *
 * <h2>States of a slot</h2>
 * <ul>
 *   <li><b>free</b> (owner null, counts 0): the first thread that maps to it claims it by
 *       a CAS of its owner from null to itself.</li>
 *   <li><b>owned</b> by a thread: only that thread writes its counts, with a plain
 *       read and a release write of the sum.</li>
 *   <li><b>owned by a thread that has ended</b>: its counts are final. The next
 *       {@link #reclaim} (the limiter's sweep tick) moves them into {@link #retired} and
 *       frees the slot.</li>
 * </ul>
 * A thread whose slot is owned by another thread counts in two {@link LongAdder}s
 * instead (the slow path: an atomic add, as every call paid before).
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>One writer per count: only a slot's owner writes its counts while it owns it, and
 *       a slot changes owner only when free, which only {@link #reclaim} makes it (after
 *       its owner ended) and then only after zeroing the counts.</li>
 *   <li>No count is lost or counted twice: each decision adds 1 to exactly one of a
 *       slot, an adder; {@link #reclaim} moves a slot's counts to {@link #retired} and
 *       zeroes them under the same lock as {@link #admitted()} and {@link #denied()} read
 *       them.</li>
 * </ol>
 *
 * <h2>Memory ordering</h2>
 * A thread reads its own slot's owner with a plain read: only the thread itself ever
 * writes itself there, so seeing itself means it did (program order), and no one else
 * writes that slot while it lives. Counts are written with release and read with
 * acquire, and a long written by {@code setRelease} is never torn. So a reader that has
 * a happens-before edge from a writer's calls (the writer's thread was joined, a latch
 * or a future handed over, any lock or volatile handoff) sees every count those calls
 * made: the sum is exact once the counted calls have returned to whoever reads. Without
 * such an edge the sum is a moment's snapshot, as a {@code LongAdder}'s is. Reclaiming
 * relies on {@link Thread#isAlive()}: a thread's last action happens-before another's
 * seeing it not alive, so its last counts are visible to {@link #reclaim}; the reclaim
 * zeroes them and frees the slot with a volatile write, which the next owner's CAS
 * reads, so the new owner starts from the zeroes.
 */
final class Tally {

    static final int ADMITTED = 0;
    static final int DENIED = 1;
    /** Offsets of the refusal memo's two longs in a slot (see the class comment). */
    private static final int UNTIL = 2;
    private static final int EPOCH = 3;
    /** Longs per slot: 128 bytes; also references per slot of {@link #memoKeys} (64 or 128 bytes). */
    static final int STRIDE = 16;

    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle OWNERS = MethodHandles.arrayElementVarHandle(Thread[].class);

    private final Thread[] owners;
    /** Slot {@code s}'s count {@code c} at {@code (s + 1) x STRIDE + c}; one stride of padding at each end. */
    private final long[] counts;
    /** Slot {@code s}'s memo key at {@code (s + 1) x STRIDE}, padded like {@link #counts}. */
    private final Object[] memoKeys;
    private final int mask;
    private final LongAdder sharedAdmitted = new LongAdder();
    private final LongAdder sharedDenied = new LongAdder();
    /** Counts moved out of slots whose owner ended. */
    @GuardedBy("this")
    private long retiredAdmitted;
    @GuardedBy("this")
    private long retiredDenied;

    /** @param slots a power of two, at least 1 */
    Tally(int slots) {
        if (slots < 1 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, got " + slots);
        }
        owners = new Thread[slots];
        counts = new long[(slots + 2) * STRIDE];
        memoKeys = new Object[(slots + 2) * STRIDE];
        mask = slots - 1;
    }

    /** Slots for a limiter on this machine: four per processor, from 32 to 1024. */
    static int defaultSlots() {
        int want = Math.min(1024, Math.max(32, 4 * Runtime.getRuntime().availableProcessors()));
        return Integer.highestOneBit(want - 1) << 1;
    }

    /** Counts one decision: {@code which} is {@link #ADMITTED} or {@link #DENIED}. */
    void count(int which) {
        countAt(slot(), which);
    }

    /**
     * The calling thread's slot: the one it owns (claiming it if it is free), or -1 when
     * another live thread owns it (the caller then counts through the adders).
     */
    int slot() {
        Thread t = Thread.currentThread();
        int s = (int) t.getId() & mask;
        if (owners[s] == t) {
            return s;
        }
        return OWNERS.getVolatile(owners, s) == null && OWNERS.compareAndSet(owners, s, null, t) ? s : -1;
    }

    /** Counts one decision in slot {@code s} from {@link #slot()} (its owner calls), or in the adders when it is -1. */
    void countAt(int s, int which) {
        if (s >= 0) {
            int i = (s + 1) * STRIDE + which;
            COUNTS.setRelease(counts, i, counts[i] + 1); // one writer: the owner (a free slot's counts are zero)
        } else {
            (which == ADMITTED ? sharedAdmitted : sharedDenied).increment();
        }
    }

    // ------------------------------------------------------------------ the refusal memo

    /**
     * The wait the memo of slot {@code s} (owned by the caller) gives {@code key} at
     * {@code now}: {@code until - now} when the slot's last refusal was of this key, was
     * remembered under {@code epoch}, and {@code now} is before its {@code until}; else 0
     * (no answer: ask the table). Counts nothing.
     */
    long recall(int s, String key, long now, long epoch) {
        int i = (s + 1) * STRIDE;
        long wait = counts[i + UNTIL] - now;
        if (wait > 0 && counts[i + EPOCH] == epoch) {
            Object k = memoKeys[i];
            if (k == key || key.equals(k)) {
                return wait;
            }
        }
        return 0L;
    }

    /**
     * Remembers in slot {@code s} (owned by the caller) that {@code key} is refused at every
     * reading before {@code until}, as long as the limiter's reset count is {@code epoch}.
     * Plain writes: only the owner reads them. Stores the key reference only when it
     * changes (no write barrier on a repeated key).
     */
    void remember(int s, String key, long until, long epoch) {
        int i = (s + 1) * STRIDE;
        if (memoKeys[i] != key) {
            memoKeys[i] = key;
        }
        counts[i + UNTIL] = until;
        counts[i + EPOCH] = epoch;
    }

    synchronized long admitted() {
        return retiredAdmitted + sharedAdmitted.sum() + sumOf(ADMITTED);
    }

    synchronized long denied() {
        return retiredDenied + sharedDenied.sum() + sumOf(DENIED);
    }

    private long sumOf(int which) {
        long n = 0;
        for (int s = 0; s <= mask; s++) {
            n += (long) COUNTS.getAcquire(counts, (s + 1) * STRIDE + which);
        }
        return n;
    }

    /** Frees the slots of threads that have ended, keeping their counts; returns how many. */
    synchronized int reclaim() {
        int freed = 0;
        for (int s = 0; s <= mask; s++) {
            Thread o = (Thread) OWNERS.getVolatile(owners, s);
            if (o != null && !o.isAlive()) { // o's last count happens-before this
                int i = (s + 1) * STRIDE;
                retiredAdmitted += counts[i + ADMITTED];
                retiredDenied += counts[i + DENIED];
                counts[i + ADMITTED] = 0L;
                counts[i + DENIED] = 0L;
                counts[i + UNTIL] = 0L;
                counts[i + EPOCH] = 0L;
                memoKeys[i] = null; // lets the key go; a null key never matches
                OWNERS.setVolatile(owners, s, null); // publishes the zeroes to the next owner's CAS
                freed++;
            }
        }
        return freed;
    }

    /** Slots owned now (tests). */
    int owned() {
        int n = 0;
        for (int s = 0; s <= mask; s++) {
            if (OWNERS.getVolatile(owners, s) != null) {
                n++;
            }
        }
        return n;
    }
}

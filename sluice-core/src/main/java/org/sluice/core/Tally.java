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
 * A fixed number of {@link Slot}s (a power of two); a thread's slot is its id modulo that
 * number (ids are handed out in sequence, so live threads rarely share one). A slot is one
 * object holding its owner, its two counts and its refusal memo, with 128 bytes of padding
 * on each side (two cache lines, so neither a neighbour's writes nor the adjacent-line
 * prefetcher pull its line away):
 * <pre>
 *   slots [ Slot | Slot | ... ]           allocated together, in order
 *   Slot  [ pad x16 | owner adm den until epoch key | pad x16 ]
 * </pre>
 * The decision path reads one array element and then fields of one object on one line:
 * no index arithmetic and one bounds check.
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

    /** 128 bytes before a slot's fields. */
    @SuppressWarnings("unused")
    abstract static class PadBefore {
        long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
    }

    /** A slot's fields (see the class comment). */
    abstract static class Fields extends PadBefore {
        /** Written by CAS (claim) and volatile write (reclaim); the owner reads it plainly. */
        Thread owner;
        long admitted;
        long denied;
        /** The refusal memo: the key refused, the first reading that could admit it, the reset count then. */
        long until;
        long epoch;
        Object key;
    }

    /** One thread's counting slot: its fields between 128 bytes of padding on each side. */
    @SuppressWarnings("unused")
    static final class Slot extends Fields {
        long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
    }

    private static final VarHandle OWNER;
    private static final VarHandle ADMITTED_COUNT;
    private static final VarHandle DENIED_COUNT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(Fields.class, "owner", Thread.class);
            ADMITTED_COUNT = l.findVarHandle(Fields.class, "admitted", long.class);
            DENIED_COUNT = l.findVarHandle(Fields.class, "denied", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Slot[] slots;
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
        this.slots = new Slot[slots];
        for (int s = 0; s < slots; s++) {
            this.slots[s] = new Slot(); // in order: each one's padding keeps its neighbours off its lines
        }
        mask = slots - 1;
    }

    /** Slots for a limiter on this machine: four per processor, from 32 to 1024. */
    static int defaultSlots() {
        int want = Math.min(1024, Math.max(32, 4 * Runtime.getRuntime().availableProcessors()));
        return Integer.highestOneBit(want - 1) << 1;
    }

    /** Counts one decision: {@code which} is {@link #ADMITTED} or {@link #DENIED}. */
    void count(int which) {
        Slot s = slot();
        if (which == ADMITTED) {
            admitted(s);
        } else {
            denied(s);
        }
    }

    /**
     * The calling thread's slot: the one it owns (claiming it if it is free), or null when
     * another live thread owns it (the caller then counts through the adders).
     */
    Slot slot() {
        Thread t = Thread.currentThread();
        Slot s = slots[(int) t.getId() & mask];
        if (s.owner == t) {
            return s;
        }
        return OWNER.getVolatile(s) == null && OWNER.compareAndSet(s, null, t) ? s : null;
    }

    /** Counts an admission in slot {@code s} from {@link #slot()} (its owner calls), or in the adder when it is null. */
    void admitted(Slot s) {
        if (s != null) {
            ADMITTED_COUNT.setRelease(s, s.admitted + 1); // one writer: the owner (a free slot's counts are zero)
        } else {
            sharedAdmitted.increment();
        }
    }

    /** Counts a refusal, as {@link #admitted(Slot)}. */
    void denied(Slot s) {
        if (s != null) {
            DENIED_COUNT.setRelease(s, s.denied + 1);
        } else {
            sharedDenied.increment();
        }
    }

    // ------------------------------------------------------------------ the refusal memo

    /**
     * The wait the memo of slot {@code s} (owned by the caller) gives {@code key} at
     * {@code now}: {@code until - now} when the slot's last refusal was of this key, was
     * remembered under {@code epoch}, and {@code now} is before its {@code until}; else 0
     * (no answer: ask the table). Counts nothing.
     */
    static long recall(Slot s, String key, long now, long epoch) {
        long wait = s.until - now;
        if (wait > 0 && s.epoch == epoch) {
            Object k = s.key;
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
    static void remember(Slot s, String key, long until, long epoch) {
        if (s.key != key) {
            s.key = key;
        }
        s.until = until;
        s.epoch = epoch;
    }

    synchronized long admitted() {
        long n = retiredAdmitted + sharedAdmitted.sum();
        for (Slot s : slots) {
            n += (long) ADMITTED_COUNT.getAcquire(s);
        }
        return n;
    }

    synchronized long denied() {
        long n = retiredDenied + sharedDenied.sum();
        for (Slot s : slots) {
            n += (long) DENIED_COUNT.getAcquire(s);
        }
        return n;
    }

    /** Frees the slots of threads that have ended, keeping their counts; returns how many. */
    synchronized int reclaim() {
        int freed = 0;
        for (Slot s : slots) {
            Thread o = (Thread) OWNER.getVolatile(s);
            if (o != null && !o.isAlive()) { // o's last count happens-before this
                retiredAdmitted += s.admitted;
                retiredDenied += s.denied;
                s.admitted = 0L;
                s.denied = 0L;
                s.until = 0L;
                s.epoch = 0L;
                s.key = null; // lets the key go; a null key never matches
                OWNER.setVolatile(s, null); // publishes the zeroes to the next owner's CAS
                freed++;
            }
        }
        return freed;
    }

    /** Slots owned now (tests). */
    int owned() {
        int n = 0;
        for (Slot s : slots) {
            if (OWNER.getVolatile(s) != null) {
                n++;
            }
        }
        return n;
    }
}

package org.sluice.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.sluice.core.Clock;
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
 *          | stripe 0: allowed denied evicted contended | lane 0:     |  64 bytes
 *          |           (atomic adds, any thread)        | holder     |  (one cache
 *          |                                            | allowed    |   line each)
 *          |                                            | denied     |
 *          |                                            | (unused)   |
 *          | stripe 1 ...                 16 stripes, 16 lanes         |
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
 * <h2>Counting lanes</h2>
 * Every admission and refusal is counted, so the count's cost is on every decision. A
 * thread counts {@code allowed} and {@code denied} in a lane it holds alone, with a plain
 * read and a release write (no locked instruction); without one it adds atomically to
 * a stripe picked by its id and its process (as {@code evicted} and {@code contended}
 * always are, being rare). A sum reads every stripe and every lane.
 * <ul>
 *   <li><b>Holding.</b> In this process a thread first claims holder {@code id mod 16}
 *       (a CAS in this object; a holder taken by another live thread leaves the caller on
 *       the atomic path), then a lane of the carve: the first whose holder word is 0, by
 *       a CAS from 0 to this process's token (the pid above a random nonce), else one
 *       whose token names a process that has ended (a pid with no live process, or this
 *       pid with another nonce: an earlier process given the same pid). No free lane:
 *       the thread counts atomically until it ends.</li>
 *   <li><b>Release.</b> Before every sum, this process frees the holders of its threads
 *       that have ended and sets their lanes' holder words back to 0. A process that ends
 *       without that (a crash, {@code kill -9}) leaves its token, which the next claim
 *       recognises as ended. A lane keeps its counts through every change of holder, and
 *       every sum includes them: a new holder adds on to what is there.</li>
 *   <li><b>One writer per lane.</b> A lane changes holder only by a CAS of its holder
 *       word, from 0 (which a release writes only after the last holder thread ended) or
 *       from the token of a process that ended. A pid reused by an unrelated process
 *       makes a dead holder look alive: the lane stays unused (a slower count, never a
 *       shared plain write). Processes in different pid namespaces sharing one file would
 *       see each other as ended: do not share an arena across pid namespaces (boot and
 *       user checks aside, nothing here can tell).</li>
 *   <li><b>Crash.</b> As with the atomic adds, a kill between a bucket's CAS and its count
 *       can leave a counter one short; a kill between a lane's read and its write loses
 *       nothing more (the write is one store).</li>
 * </ul>
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
 * <h2>A limiter's tables: versioned words, charges undone</h2>
 * A {@link SharedLimiter}'s table is this table with two additions, both through the same
 * loop. Its words' lowest fingerprint bit is the parity of the limit version they were
 * written under: given a {@link Conversion}, the loop takes a word whose fingerprint
 * matches but for that bit as the key's, reads it through the conversion when the bit is
 * the other version's, and writes it back (if it charges) with the current bit, in the
 * one CAS. And a charge of {@link #OP_TAKE} answers the time it wrote, so that {@link
 * #refund} can undo it when another bandwidth of the same call refuses (see {@link
 * SharedLimiter}, "A charge of several bandwidths", for why an undo never gives back
 * time another charge spent).
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
 * atomic operations require. Stripe counters use an atomic add; a lane's counts are
 * written with a release store by their one holder and read with {@code getVolatile}, so
 * a reader that a holder's calls happen-before (a joined thread, a process that exited
 * before the read) sees them all; its holder word changes only by CAS (a release also by
 * CAS, after the holder thread was seen ended). Nothing else is shared.
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
    /**
     * A charge that answers, when admitted, {@code ~tat} (negative): the time it wrote,
     * which a {@link #refund} needs to undo it. A refusal answers the wait, a charge given
     * up under contention 0 (nothing written, nothing to undo).
     */
    static final int OP_TAKE = 3;

    /** Told of the rare events a limiter reports to its listener; called after the event, on the calling thread. */
    interface Events {
        Events NONE = new Events() {
        };

        /** A live bucket's word was taken over by a new key. */
        default void evicted() {
        }

        /** A charge gave up after {@link #MAX_ATTEMPTS} failed compare-and-swaps and was admitted uncharged. */
        default void contended() {
        }
    }

    private static final long PID = ProcessHandle.current().pid();
    private static final long STRIPE_SALT = PID * 0x9E3779B97F4A7C15L;
    /** Offset in a stripe of its counting lane: holder token, then allowed and denied (see the class comment). */
    static final int LANE_OWNER = 32;
    /** Threads of this process that can hold a lane of one carve at once (by thread id). */
    static final int LANE_HOLDERS = 16;
    /** Marks a lane held by this process: the pid above a random nonzero nonce, so a later process given the same pid can tell. */
    private static final long LANE_TOKEN = PID << 32 | (new java.security.SecureRandom().nextInt() | 1) & 0xFFFF_FFFFL;
    private static final VarHandle HOLDERS = MethodHandles.arrayElementVarHandle(Thread[].class);

    /** The thread of this process holding holder {@code h} (its id modulo {@link #LANE_HOLDERS}), or null. */
    private final Thread[] holders = new Thread[LANE_HOLDERS];
    /** The count offset of holder {@code h}'s lane, 0 when it holds none; written by the holder and, once it ended, by {@link #releaseEnded}. */
    private final int[] laneAt = new int[LANE_HOLDERS];

    private final MappedWords words;
    private final int countersOffset;
    private final int wordsOffset;
    private final int slots;
    private final int groupMask;
    private final int maxAttempts;
    private final Events events;

    /**
     * How a table whose words carry a limit version (the lowest fingerprint bit is the
     * version's parity, see {@link SharedLimiter}'s "A live change") reads a word of the
     * other parity: written under the previous version's limit. Given that word and
     * {@code now}, answers its time converted to the current limit, or {@link #STALE}
     * when the caller's version is no longer the current one (the word may be newer than
     * the caller).
     */
    interface Conversion {
        long STALE = Long.MIN_VALUE;

        long tat(long word, long now);
    }

    /** Answered by {@link #update} and {@link #peekTat} when the {@link Conversion} found the caller stale. */
    static final long STALE = Conversion.STALE;

    SlotTable(ByteBuffer map, int carveOffset, int slots) {
        this(map, carveOffset, slots, MAX_ATTEMPTS, Events.NONE);
    }

    /** A table whose evictions and contended charges are also told to {@code events}. */
    SlotTable(ByteBuffer map, int carveOffset, int slots, Events events) {
        this(map, carveOffset, slots, MAX_ATTEMPTS, events);
    }

    /** {@code maxAttempts} other than {@link #MAX_ATTEMPTS} only in tests of the fail-open path. */
    SlotTable(ByteBuffer map, int carveOffset, int slots, int maxAttempts) {
        this(map, carveOffset, slots, maxAttempts, Events.NONE);
    }

    SlotTable(ByteBuffer map, int carveOffset, int slots, int maxAttempts, Events events) {
        this.maxAttempts = maxAttempts;
        this.events = Objects.requireNonNull(events, "events");
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
     * wait in microseconds for a refused charge, {@code ~tat} for a charge of {@link
     * #OP_TAKE} admitted (see there), else 0.
     */
    long update(long hash, int op, long increment, long tolerance, long now) {
        return update(hash, op, increment, tolerance, now, null);
    }

    /**
     * {@link #update(long, int, long, long, long)} on a table of versioned words when
     * {@code conversion} is not null: the key's word is the one whose fingerprint matches
     * but for the lowest bit (the version's parity, {@code hash}'s being the current one); a
     * word of the other parity is read through {@code conversion} and written back, if at
     * all, in the current version. Answers {@link #STALE} when the conversion does.
     */
    long update(long hash, int op, long increment, long tolerance, long now, Conversion conversion) {
        long fp = BucketWord.fingerprint(hash);
        long keyBits = conversion == null ? fp : fp >>> 1;
        int shift = conversion == null ? 0 : 1;
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
                if (w != 0 && BucketWord.fingerprintOf(w) >>> shift == keyBits) {
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
            if (op == OP_CHARGE || op == OP_TAKE) {
                boolean evict = false;
                long tat;
                boolean current = !own || BucketWord.fingerprintOf(old) == fp;
                if (own && current) {
                    tat = BucketWord.tat(old, now, tolerance);
                } else if (own) {
                    tat = conversion.tat(old, now); // written under the previous limit
                    if (tat == STALE) {
                        return STALE;
                    }
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
                long admitted = op == OP_TAKE ? ~tatAfter : 0;
                if (own && current && tatAfter == tat) {
                    count(ALLOWED); // a zero charge changes nothing
                    return admitted;
                }
                next = BucketWord.encode(fp, tatAfter);
                if (words.compareAndSet(target, old, next)) {
                    count(ALLOWED);
                    if (evict) {
                        count(EVICTED);
                        events.evicted();
                    }
                    return admitted;
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
        if (op == OP_CHARGE || op == OP_TAKE) {
            count(CONTENDED);
            events.contended();
        }
        return 0;
    }

    /**
     * Undoes an admitted {@link #OP_TAKE} of {@code increment} that wrote {@code tat}
     * (whose caller's other bandwidths then refused), at most {@link #MAX_ATTEMPTS} times
     * round the loop. When the key's word is still the one the charge wrote, the whole
     * increment is given back: the word reads as before the charge. When another charge
     * of the key came in between (it was computed on top of ours), the increment is given
     * back less the time from the charge's start ({@code tat - increment}) to a reading
     * of {@code clock} taken after that word was read, which is never more than the
     * charge added to what the word holds now (see "A charge of several bandwidths" in
     * {@link SharedLimiter}): so an undo never gives back time another charge spent, and
     * leaves nothing spent when the readings agree. A word another key took over, or one
     * forgotten, is left alone (the key reads as full anyway). Should every attempt's
     * compare-and-swap fail, the increment stays spent: the key is refused sooner, never
     * admitted more.
     */
    void refund(long hash, long tat, long increment, long tolerance, Clock clock) {
        long fp = BucketWord.fingerprint(hash);
        long written = BucketWord.encode(fp, tat);
        for (int attempt = 0; attempt < maxAttempts; attempt++) {
            int at = own(hash, fp);
            if (at < 0) {
                return;
            }
            long w = words.getVolatile(at);
            if (BucketWord.fingerprintOf(w) != fp) {
                continue; // taken over since own() looked: look again
            }
            long next;
            if (w == written) {
                next = tat - increment;
            } else {
                long now = Math.floorDiv(clock.nanoTime(), 1000L); // read after w: no later than any reading w holds
                long back = increment - Math.max(0L, now - (tat - increment));
                if (back <= 0) {
                    return;
                }
                long current = BucketWord.tat(w, now, tolerance);
                if (current <= now) {
                    return; // full already
                }
                next = current - back;
            }
            if (words.compareAndSet(at, w, BucketWord.encode(fp, next))) {
                return;
            }
        }
        // gave up under contention: the increment stays spent (the key is refused sooner, never admitted more)
    }

    /** The offset of the word carrying {@code fp} in the key's group, or -1. */
    private int own(long hash, long fp) {
        int group = wordsOffset + (int) (hash & groupMask) * (GROUP * 8);
        int home = (int) (hash >>> 32) & (GROUP - 1);
        for (int i = 0; i < GROUP; i++) {
            int at = group + (((home + i) & (GROUP - 1)) << 3);
            long w = words.getVolatile(at);
            if (w != 0 && BucketWord.fingerprintOf(w) == fp) {
                return at;
            }
        }
        return -1;
    }

    /** Counts a refusal decided without {@link #update} (a limiter of several bandwidths that looked first). */
    void countDenied() {
        count(DENIED);
    }

    /**
     * The theoretical arrival time (microseconds) of the key's bucket as its owner would
     * read it at {@code now}; {@code now} when the key has no bucket. Spends nothing.
     */
    long peekTat(long hash, long tolerance, long now) {
        return peekTat(hash, tolerance, now, null);
    }

    /** {@link #peekTat(long, long, long)} on a table of versioned words (see {@link #update(long, int, long, long, long, Conversion)}). */
    long peekTat(long hash, long tolerance, long now, Conversion conversion) {
        long fp = BucketWord.fingerprint(hash);
        int shift = conversion == null ? 0 : 1;
        int group = wordsOffset + (int) (hash & groupMask) * (GROUP * 8);
        int home = (int) (hash >>> 32) & (GROUP - 1);
        for (int i = 0; i < GROUP; i++) {
            long w = words.getVolatile(group + (((home + i) & (GROUP - 1)) << 3));
            if (w != 0 && BucketWord.fingerprintOf(w) >>> shift == fp >>> shift) {
                return BucketWord.fingerprintOf(w) == fp ? BucketWord.tat(w, now, tolerance) : conversion.tat(w, now);
            }
        }
        return now;
    }

    /**
     * Converts every word of {@code parity} (a previous version's) to the current version
     * through {@code conversion} at {@code now}, flipping its parity: the walk of a live
     * change. Each word by CAS, a few attempts (a word a caller changed meanwhile was
     * converted by that caller). Returns the words converted.
     */
    int convertAll(long parity, Conversion conversion, long now) {
        int converted = 0;
        for (int i = 0; i < slots; i++) {
            int at = wordsOffset + (i << 3);
            for (int attempt = 0; attempt < GROUP; attempt++) {
                long w = words.getVolatile(at);
                if (w == 0 || (BucketWord.fingerprintOf(w) & 1) != parity) {
                    break;
                }
                long tat = conversion.tat(w, now);
                if (tat == STALE) {
                    return converted;
                }
                if (words.compareAndSet(at, w, BucketWord.encode(BucketWord.fingerprintOf(w) ^ 1, tat))) {
                    converted++;
                    break;
                }
            }
        }
        return converted;
    }

    /** Empties every word (a table a live change takes back into use after a version that had no such bandwidth). */
    void clearAll() {
        for (int i = 0; i < slots; i++) {
            int at = wordsOffset + (i << 3);
            long w = words.getVolatile(at);
            while (w != 0 && !words.compareAndSet(at, w, 0L)) {
                w = words.getVolatile(at);
            }
        }
    }

    // ------------------------------------------------------------------ counters and walks

    /**
     * Counts one event. {@code allowed} and {@code denied} go to the calling thread's
     * counting lane when it holds one (a plain add and a release write: one writer per
     * lane), else, as {@code evicted} and {@code contended} always do, to a stripe by an
     * atomic add. See "Counting lanes" in the class comment.
     */
    private void count(int field) {
        Thread t = Thread.currentThread();
        if (field <= DENIED) {
            int h = (int) t.getId() & (LANE_HOLDERS - 1);
            if (holders[h] == t || hold(t, h)) {
                int at = laneAt[h];
                if (at != 0) {
                    words.setRelease(at + field, words.getPlain(at + field) + 1L);
                    return;
                }
            }
        }
        int stripe = (int) (((t.getId() + STRIPE_SALT) * 0x9E3779B97F4A7C15L) >>> 60);
        words.getAndAdd(countersOffset + stripe * STRIPE_BYTES + field, 1L);
    }

    /**
     * Claims holder {@code h} for {@code t} when it is free, and with it a lane of the
     * carve if one is free or its holder's process has ended; true when {@code t} now
     * holds {@code h} (with a lane or, none being free, without: it then counts by
     * atomic adds until it ends).
     */
    private boolean hold(Thread t, int h) {
        if (HOLDERS.getVolatile(holders, h) != null || !HOLDERS.compareAndSet(holders, h, null, t)) {
            return false;
        }
        laneAt[h] = claimLane();
        return true;
    }

    /** The count offset of a lane this process now holds (a free one, else a dead process's), or 0 when none. */
    private int claimLane() {
        for (int s = 0; s < STRIPES; s++) {
            int owner = laneOwner(s);
            if (words.getVolatile(owner) == 0L && words.compareAndSet(owner, 0L, LANE_TOKEN)) {
                return owner + 8;
            }
        }
        for (int s = 0; s < STRIPES; s++) {
            int owner = laneOwner(s);
            long held = words.getVolatile(owner);
            if (held != 0L && ended(held) && words.compareAndSet(owner, held, LANE_TOKEN)) {
                return owner + 8; // its counts stay in the lane and in every sum: this process adds on
            }
        }
        return 0;
    }

    /** True when the process that wrote {@code token} has ended: an earlier process with this pid, or a pid with no live process. */
    static boolean ended(long token) {
        long pid = token >>> 32;
        if (pid == PID) {
            return token != LANE_TOKEN;
        }
        return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    }

    /**
     * Frees the holders of threads that have ended, handing their lanes back to the carve
     * (their counts stay in the lane). Called before every sum.
     */
    private synchronized void releaseEnded() {
        for (int h = 0; h < LANE_HOLDERS; h++) {
            Thread t = (Thread) HOLDERS.getVolatile(holders, h);
            if (t != null && !t.isAlive()) { // t's last count happens-before this
                int at = laneAt[h];
                if (at != 0) {
                    words.compareAndSet(at - 8, LANE_TOKEN, 0L); // after t's last release write
                    laneAt[h] = 0;
                }
                HOLDERS.setVolatile(holders, h, null); // publishes laneAt's 0 to the next holder's CAS
            }
        }
    }

    long counter(int field) {
        releaseEnded();
        long sum = 0;
        for (int s = 0; s < STRIPES; s++) {
            sum += words.getVolatile(countersOffset + s * STRIPE_BYTES + field);
            if (field <= DENIED) {
                sum += words.getVolatile(laneOwner(s) + 8 + field);
            }
        }
        return sum;
    }

    /** Lanes of this carve held by some process now (tests). */
    int lanesHeld() {
        int n = 0;
        for (int s = 0; s < STRIPES; s++) {
            if (laneHolder(s) != 0L) {
                n++;
            }
        }
        return n;
    }

    /** The holder word of lane {@code s} (tests). */
    long laneHolder(int s) {
        return words.getVolatile(laneOwner(s));
    }

    /** The offset of lane {@code s}'s holder word; its allowed and denied counts follow it. */
    private int laneOwner(int s) {
        return countersOffset + s * STRIPE_BYTES + LANE_OWNER;
    }

    /** Writes {@code token} as the holder of lane {@code s} and {@code allowed} as its count (tests: a lane a dead process left). */
    void plantLane(int s, long token, long allowed) {
        int owner = laneOwner(s);
        words.setRelease(owner + 8 + ALLOWED, allowed);
        words.compareAndSet(owner, words.getVolatile(owner), token);
    }

    /** This process's lane token: its pid above a random nonce (tests). */
    static long laneToken() {
        return LANE_TOKEN;
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

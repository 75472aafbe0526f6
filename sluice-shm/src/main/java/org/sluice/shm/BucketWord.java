package org.sluice.shm;

/**
 * The 64-bit word that is one bucket: a key fingerprint and the bucket's state packed
 * together so that a single compare-and-swap changes both.
 *
 * <pre>
 *  63                      40 39                                               0
 * +--------------------------+--------------------------------------------------+
 * |  fingerprint (24 bits)   |  tat: theoretical arrival time, microseconds,    |
 * |  never 0                 |  low 40 bits of floor(clock nanos / 1000)        |
 * +--------------------------+--------------------------------------------------+
 *  word == 0: an empty slot (no fingerprint is 0, so no bucket encodes to 0)
 * </pre>
 *
 * <h2>Why a killed process leaves nothing half-written</h2>
 * A bucket is changed only by {@code compareAndSet} of this one aligned 8-byte word in
 * the mapped file (the kernel's page cache for {@code /dev/shm}). The CPU performs an
 * aligned 8-byte CAS as one indivisible memory operation ({@code lock cmpxchg} on x86-64,
 * an LL/SC or LSE CAS loop on AArch64 that only publishes a complete store), and the
 * page belongs to the file, not to the process, so the store survives the process.
 * A process killed by SIGKILL stops between two instructions, so at any kill point the
 * CAS either has executed (the word holds the new fingerprint and the new time together)
 * or has not (the word holds the old pair). There is no instruction after which the
 * fingerprint is new and the time old, because they are not written separately, and
 * there is no second word whose update could be missing: nothing to repair, no lock to
 * break, no peer table. The counters next to the table are separate atomic adds, so a
 * kill between a bucket's CAS and its counter's add can leave a counter one short; the
 * bucket itself is exact.
 *
 * <h2>Time in 40 bits</h2>
 * The time field holds microseconds modulo 2<sup>40</sup> ({@link #PERIOD_MICROS}, about
 * 12.7 days). A reader reconstructs the stored time from its own reading {@code now}:
 * {@code d = signExtend40(stored - now)}, {@code tat = now + d}, which is exact whenever
 * the true difference lies in (-2<sup>39</sup>, 2<sup>39</sup>) us, about +-6.4 days. A
 * bucket that is in debt is at most its tolerance ahead of the writer's clock (at most
 * {@link #MAX_TOLERANCE_MICROS}, about 38 hours), so:
 * <ul>
 *   <li>{@code d <= 0}: the bucket is full (identical to an empty slot);</li>
 *   <li>{@code 0 < d <= tolerance}: debt {@code d}, the normal case;</li>
 *   <li>{@code tolerance < d <= tolerance + SLACK}: the writer's clock reading was later
 *       than ours (two processes read the clock at slightly different moments, or the
 *       caller passed a reading taken a while ago). This never refills: the bucket
 *       reads as exactly empty ({@code tat = now + tolerance});</li>
 *   <li>{@code d > tolerance + SLACK}: no live bucket can be that far ahead, so the word
 *       was written more than 2<sup>40</sup> - (tolerance + SLACK) us ago and the field
 *       has wrapped: the bucket is full.</li>
 * </ul>
 * The one case the wrap gets wrong: a key idle for longer than about 12.7 days minus
 * (tolerance + 71.6 minutes), whose word was not reclaimed by another key meanwhile, can
 * land in the second or third band and read as partly or fully empty instead of full,
 * once (the next admission rewrites the word). Keys idle for less than 6.4 days are
 * always read correctly.
 */
final class BucketWord {

    static final int TIME_BITS = 40;
    static final int FINGERPRINT_BITS = 64 - TIME_BITS;
    static final long TIME_MASK = (1L << TIME_BITS) - 1;
    /** 2^40 us, about 12.7 days: the period after which the stored time repeats. */
    static final long PERIOD_MICROS = 1L << TIME_BITS;
    /** The largest tolerance (burst x interval) a bucket may have: 2^37 us, about 38.2 hours. */
    static final long MAX_TOLERANCE_MICROS = 1L << 37;
    /** How far a writer's clock may run ahead of a reader's and still read as debt: 2^32 us, about 71.6 minutes. */
    static final long SLACK_MICROS = 1L << 32;

    private BucketWord() {
    }

    /** A fingerprint in [1, 2^24) from the high bits of a key hash. */
    static long fingerprint(long hash) {
        long fp = hash >>> TIME_BITS;
        return fp == 0 ? 1 : fp;
    }

    static long encode(long fingerprint, long tatMicros) {
        return (fingerprint << TIME_BITS) | (tatMicros & TIME_MASK);
    }

    static long fingerprintOf(long word) {
        return word >>> TIME_BITS;
    }

    /** The signed distance from {@code nowMicros} to the stored time, valid within +-2^39 us. */
    static long delta(long word, long nowMicros) {
        return ((word - nowMicros) << FINGERPRINT_BITS) >> FINGERPRINT_BITS;
    }

    /**
     * The owner's view of its bucket: the theoretical arrival time in microseconds
     * according to the bands in the class comment.
     */
    static long tat(long word, long nowMicros, long toleranceMicros) {
        long d = delta(word, nowMicros);
        if (d <= 0 || d > toleranceMicros + SLACK_MICROS) {
            return nowMicros; // full, or wrapped long ago
        }
        return nowMicros + Math.min(d, toleranceMicros);
    }

    /**
     * True when a word can be taken by another key without losing anything: empty, full,
     * or wrapped. Other keys' tolerances are unknown, so any debt up to the largest
     * tolerance plus slack counts as live.
     */
    static boolean reclaimable(long word, long nowMicros) {
        if (word == 0) {
            return true;
        }
        long d = delta(word, nowMicros);
        return d <= 0 || d > MAX_TOLERANCE_MICROS + SLACK_MICROS;
    }
}

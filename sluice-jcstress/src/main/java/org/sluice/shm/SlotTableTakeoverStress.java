package org.sluice.shm;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

/**
 * {@link SlotTable}'s invariant "identity and state change together": a charge on a key's
 * own word races a takeover of that word by a new key whose group is full of live
 * buckets. Whoever writes last, the word holds one key's fingerprint with that key's own
 * state, never the new key's fingerprint over the old key's debt.
 *
 * <p>The table is 8 words (two groups) in a direct buffer. Group 0 holds four live
 * buckets, fingerprints 1 to 4 at homes 0 to 3, each with tat 1000 us, tolerance 2000 us:
 * room for one more each at now = 0. Key A (fingerprint 1) charges its own word; key B
 * (fingerprint 5, home 0, a stranger to the group) takes over home 0.
 */
@JCStressTest
@Description("A charge on a key's word races the takeover of that word by another key")
@Outcome(id = "0, 0, 5, 1000, 1", expect = ACCEPTABLE, desc = "A charged first (tat 2000), then B took the word over fresh")
@Outcome(id = "0, 0, 1, 1000, 2", expect = ACCEPTABLE, desc = "B took the word first; A, now a stranger, took it back fresh")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class SlotTableTakeoverStress {

    static final int SLOTS = 8;
    static final long INCREMENT = 1000;
    static final long TOLERANCE = 2000;
    static final long A = hash(1, 0);
    static final long B = hash(5, 0);

    /** A hash landing in group 0 with this fingerprint and home word. */
    static long hash(long fingerprint, int home) {
        return (fingerprint << BucketWord.TIME_BITS) | ((long) home << 32);
    }

    final SlotTable table = new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(SLOTS)), 0, SLOTS);

    public SlotTableTakeoverStress() {
        table.update(A, SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
        for (int fp = 2; fp <= 4; fp++) {
            table.update(hash(fp, fp - 1), SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
        }
    }

    @Actor
    public void owner(JJJJJ_Result r) {
        r.r1 = table.update(A, SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
    }

    @Actor
    public void stranger(JJJJJ_Result r) {
        r.r2 = table.update(B, SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
    }

    @Arbiter
    public void after(JJJJJ_Result r) {
        long w = table.word(0);
        r.r3 = BucketWord.fingerprintOf(w);
        r.r4 = w & BucketWord.TIME_MASK;
        r.r5 = table.counter(SlotTable.EVICTED);
    }
}

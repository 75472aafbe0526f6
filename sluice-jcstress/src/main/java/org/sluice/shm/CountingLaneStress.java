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
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * {@link SlotTable}'s counting lanes ("One writer per lane"): two threads count their first
 * admissions on a fresh carve at once, so both race to claim a lane (a CAS of the same free
 * holder word). Each must end up in a lane of its own, or (when their ids map to one holder)
 * one in a lane and the other on the atomic stripes: never two plain writers in one lane,
 * which would lose a count.
 *
 * <p>The carve is 64 words in a direct buffer; each actor charges three keys of its own,
 * each in its own group, on a limit that admits them all. The arbiter reads the
 * {@code allowed} sum (stripes and lanes). jcstress's actor threads have ended by then, so
 * that sum also hands their lanes back first ("Release"): the lanes held at that point say
 * nothing about the race and are not part of the result.
 */
@JCStressTest
@Description("Two threads claim counting lanes of one carve at once and count in them")
@Outcome(id = "6", expect = ACCEPTABLE, desc = "every count kept (each thread in a lane of its own, or one on the stripes)")
@Outcome(expect = FORBIDDEN, desc = "a count lost: two plain writers in one lane")
@State
public class CountingLaneStress {

    static final int SLOTS = 64;
    static final long INCREMENT = 1;
    static final long TOLERANCE = 1_000_000;

    /** A hash in group {@code group} (of 16) with a fingerprint of its own. */
    static long key(int group) {
        return ((long) (group + 1) << BucketWord.TIME_BITS) | group;
    }

    final SlotTable table = new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(SLOTS)), 0, SLOTS);

    @Actor
    public void first() {
        for (int g = 0; g < 3; g++) {
            table.update(key(g), SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
        }
    }

    @Actor
    public void second() {
        for (int g = 3; g < 6; g++) {
            table.update(key(g), SlotTable.OP_CHARGE, INCREMENT, TOLERANCE, 0);
        }
    }

    @Arbiter
    public void after(J_Result r) {
        r.r1 = table.counter(SlotTable.ALLOWED);
    }
}

package org.sluice.shm;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;
import org.sluice.core.Clock;
import org.sluice.core.Limit;

/**
 * {@link SharedBands}' charge of several bandwidths (look, charge each by its own CAS,
 * undo on a refusal): two callers charge one permit each to one key of two bandwidths,
 * A (1,000 per second, bursts of 2) and B (1,000 per second, bursts of 1), at one
 * reading. Both may pass the look and both charge A (it has room for two); then B admits
 * one of them. So exactly one caller is admitted, whatever the interleaving of looks,
 * charges and undos; the other is refused with B's wait of 1,000 us; and afterwards each
 * bandwidth holds exactly the one admitted permit (a debt of 1,000 us): a refusal leaves
 * nothing spent, both when its charge of A is still the word's (given back whole) and
 * when the other caller charged A on top of it (given back by the reading rule), and
 * nothing is given back twice. (Two actors: jcstress runs a test only with a CPU per
 * actor, and the machines it runs on here have two.)
 *
 * <p>Result: the two callers' answers (0 = admitted, else the wait in us), then A's and
 * B's debt in us.
 */
@JCStressTest
@Description("Two callers charge one key of two bandwidths; only B's one permit may be admitted")
@Outcome(id = "0, 1000, 1000, 1000", expect = ACCEPTABLE, desc = "the first caller was admitted, the other refused, nothing else spent")
@Outcome(id = "1000, 0, 1000, 1000", expect = ACCEPTABLE, desc = "the second caller was admitted, the other refused, nothing else spent")
@Outcome(expect = FORBIDDEN, desc = "over-admission, a refusal that left a spend, a lost charge, or a wrong wait")
@State
public class SharedBandsStress {

    static final int SLOTS = 8;
    /** A reading on a whole microsecond, so the table's unit loses nothing. */
    static final long NOW_NS = 5_000_000_000L;
    static final long NOW_US = NOW_NS / 1000;
    static final Clock CLOCK = () -> NOW_NS;
    static final long KEY = (7L << BucketWord.TIME_BITS) | (2L << 32) | 1;

    final SharedBands bands = new SharedBands(List.of(Limit.of(1000, 2), Limit.of(1000, 1)),
            new SlotTable[] {table(), table()});

    static SlotTable table() {
        return new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(SLOTS)), 0, SLOTS);
    }

    @Actor
    public void first(JJJJ_Result r) {
        r.r1 = bands.charge(KEY, 1, NOW_US, CLOCK);
    }

    @Actor
    public void second(JJJJ_Result r) {
        r.r2 = bands.charge(KEY, 1, NOW_US, CLOCK);
    }

    @Arbiter
    public void after(JJJJ_Result r) {
        r.r3 = bands.debt(0, KEY, NOW_US);
        r.r4 = bands.debt(1, KEY, NOW_US);
    }
}

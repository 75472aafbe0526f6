package org.sluice.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link AddressTable}'s claim: concurrent charges on one slot are linearised by their
 * successful CAS and never overshoot. Two actors charge the same address at the same
 * clock reading; the arbiter charges once more.
 */
public class AddressTableChargeStress {

    static final byte[] ADDRESS = {(byte) 192, 0, 2, 1};
    static final long INTERVAL = 1000;
    static final long NOW = 0;

    /** Room for one: exactly one actor is admitted, the other gets the whole interval as its wait. */
    @JCStressTest
    @Description("Two charges race for the last token of a one-slot table")
    @Outcome(id = "0, 1000, 1000", expect = ACCEPTABLE, desc = "actor 1 won the token")
    @Outcome(id = "1000, 0, 1000", expect = ACCEPTABLE, desc = "actor 2 won the token")
    @Outcome(expect = FORBIDDEN, desc = "both admitted (overshoot), or none, or a wrong wait")
    @State
    public static class LastToken {
        final AddressTable table = new AddressTable(1, 1, 2);

        @Actor
        public void actor1(JJJ_Result r) {
            r.r1 = table.tryCharge(ADDRESS, INTERVAL, INTERVAL, NOW);
        }

        @Actor
        public void actor2(JJJ_Result r) {
            r.r2 = table.tryCharge(ADDRESS, INTERVAL, INTERVAL, NOW);
        }

        @Arbiter
        public void after(JJJ_Result r) {
            r.r3 = table.tryCharge(ADDRESS, INTERVAL, INTERVAL, NOW);
        }
    }

    /** Room for two: both are admitted and both are recorded (no lost update), so the third waits one interval. */
    @JCStressTest
    @Description("Two admitted charges on one slot: neither overwrites the other")
    @Outcome(id = "0, 0, 1000", expect = ACCEPTABLE, desc = "both admitted, both recorded")
    @Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "a lost update: the third charge found room")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class NoLostUpdate {
        final AddressTable table = new AddressTable(1, 1, 2);

        @Actor
        public void actor1(JJJ_Result r) {
            r.r1 = table.tryCharge(ADDRESS, INTERVAL, 2 * INTERVAL, NOW);
        }

        @Actor
        public void actor2(JJJ_Result r) {
            r.r2 = table.tryCharge(ADDRESS, INTERVAL, 2 * INTERVAL, NOW);
        }

        @Arbiter
        public void after(JJJ_Result r) {
            r.r3 = table.tryCharge(ADDRESS, INTERVAL, 2 * INTERVAL, NOW);
        }
    }
}

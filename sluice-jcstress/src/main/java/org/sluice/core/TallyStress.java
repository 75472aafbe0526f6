package org.sluice.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * {@link Tally}'s claim (the counts behind {@code RateLimiter.stats()}): counts added
 * with plain writes by the threads that own their slots, or with the adders by threads
 * that do not, are all seen by a reader that comes after the counting calls (the arbiter
 * runs after both actors, with a happens-before edge from them). None lost, none
 * counted twice.
 */
public class TallyStress {

    /** One slot: the actors race to claim it; the loser counts through the adders. */
    @JCStressTest
    @Description("Two threads count into a one-slot tally: one owns the slot, one takes the adder path")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "every count seen")
    @Outcome(expect = FORBIDDEN, desc = "a count lost or doubled")
    @State
    public static class SharedSlot {
        final Tally tally = new Tally(1);

        @Actor
        public void actor1() {
            tally.count(Tally.ADMITTED);
            tally.count(Tally.DENIED);
        }

        @Actor
        public void actor2() {
            tally.count(Tally.ADMITTED);
        }

        @Arbiter
        public void after(JJ_Result r) {
            r.r1 = tally.admitted();
            r.r2 = tally.denied();
        }
    }

    /** Many slots: each actor owns its own (their thread ids differ), both plain. */
    @JCStressTest
    @Description("Two threads count into their own slots with plain writes")
    @Outcome(id = "3, 2", expect = ACCEPTABLE, desc = "every count seen")
    @Outcome(expect = FORBIDDEN, desc = "a count lost or doubled")
    @State
    public static class OwnSlots {
        final Tally tally = new Tally(64);

        @Actor
        public void actor1() {
            tally.count(Tally.ADMITTED);
            tally.count(Tally.ADMITTED);
            tally.count(Tally.DENIED);
        }

        @Actor
        public void actor2() {
            tally.count(Tally.DENIED);
            tally.count(Tally.ADMITTED);
        }

        @Arbiter
        public void after(JJ_Result r) {
            r.r1 = tally.admitted();
            r.r2 = tally.denied();
        }
    }

    /**
     * A reader racing one counting thread sees 0, 1 or 2 of its admissions, never a value
     * it did not write (a long written with release is never torn) and never more.
     */
    @JCStressTest
    @Description("stats() during counting: a snapshot between none and all")
    @Outcome(id = {"0, 2", "1, 2", "2, 2"}, expect = ACCEPTABLE, desc = "a snapshot, then the exact sum after")
    @Outcome(expect = FORBIDDEN, desc = "a torn or impossible count")
    @State
    public static class ReadDuringCount {
        final Tally tally = new Tally(64);

        @Actor
        public void counter() {
            tally.count(Tally.ADMITTED);
            tally.count(Tally.ADMITTED);
        }

        @Actor
        public void reader(JJ_Result r) {
            r.r1 = tally.admitted();
        }

        @Arbiter
        public void after(JJ_Result r) {
            r.r2 = tally.admitted();
        }
    }
}

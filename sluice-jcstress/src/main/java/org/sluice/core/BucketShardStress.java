package org.sluice.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * {@link BucketTable}'s invariant 3, "no lost charge": a lock-free charge
 * ({@code BucketShard.chargeSlot}) racing the sweep (CAS to DEAD, then a rebuild that
 * swaps every word to MOVED) or a rebuild started by an insert either lands first and
 * is kept, or fails its CAS and is redone under the lock. Every test gives the key room
 * for exactly one more token, so the arbiter's charge is refused (wait 1000) if and only
 * if the actor's charge was recorded.
 */
public class BucketShardStress {

    static final long INTERVAL = 1000;
    static final long TWO = 2 * INTERVAL;
    static final String KEY = "tenant-a";

    static long charge(BucketShard shard, String key, long tolerance, long now) {
        int h = key.hashCode();
        return shard.charge(key, h, BucketShard.home(BucketShard.mix(h)), INTERVAL, tolerance, now);
    }

    /**
     * The key's row is full at the sweep's {@code now} (tat 1000, now 1000), so the sweep
     * tries to delete it while the actor charges it. A deletion makes a quarter of the
     * slots dead, so the sweep also rebuilds the shard in the same step.
     */
    @JCStressTest
    @Description("A charge on a full row races the sweep that deletes it (and rebuilds)")
    @Outcome(id = "0, 0, 1000, 1", expect = ACCEPTABLE, desc = "the charge landed first; the sweep left the row")
    @Outcome(id = "0, 1, 1000, 1", expect = ACCEPTABLE, desc = "the sweep deleted the row; the charge revived it under the lock")
    @Outcome(expect = FORBIDDEN, desc = "a lost charge (the arbiter admitted) or a wrong live count")
    @State
    public static class ChargeVersusSweep {
        final BucketShard shard = new BucketShard(BucketShard.MIN_CAPACITY, null);

        public ChargeVersusSweep() {
            charge(shard, KEY, INTERVAL, 0); // tat 1000: full from now = 1000 on
        }

        @Actor
        public void charger(JJJJ_Result r) {
            r.r1 = charge(shard, KEY, INTERVAL, 1000);
        }

        @Actor
        public void sweeper(JJJJ_Result r) {
            r.r2 = shard.sweep(1000);
        }

        @Arbiter
        public void after(JJJJ_Result r) {
            r.r3 = charge(shard, KEY, INTERVAL, 1000);
            r.r4 = shard.live();
        }
    }

    static final String[] FILLERS = new String[11];

    static {
        for (int i = 0; i < FILLERS.length; i++) {
            FILLERS[i] = "filler-" + i;
        }
    }

    /**
     * Twelve live rows fill a 16-slot shard to its threshold; a new key's insert must
     * rebuild (into 32 slots) while the actor charges an existing row of the old table.
     */
    @JCStressTest
    @Description("A charge on a live row races a rebuild started by another key's insert")
    @Outcome(id = "0, 0, 1000, 13, 32", expect = ACCEPTABLE, desc = "the charge was kept by the copy or redone in the new table")
    @Outcome(expect = FORBIDDEN, desc = "a lost charge (the arbiter admitted), a lost row, or no rebuild")
    @State
    public static class ChargeVersusRebuild {
        final BucketShard shard = new BucketShard(BucketShard.MIN_CAPACITY, null);

        public ChargeVersusRebuild() {
            charge(shard, KEY, TWO, 0); // tat 1000: room for one more at now = 0
            for (String f : FILLERS) {
                charge(shard, f, TWO, 0);
            }
        }

        @Actor
        public void charger(JJJJJ_Result r) {
            r.r1 = charge(shard, KEY, TWO, 0);
        }

        @Actor
        public void inserter(JJJJJ_Result r) {
            r.r2 = charge(shard, "newcomer", TWO, 0);
        }

        @Arbiter
        public void after(JJJJJ_Result r) {
            r.r3 = charge(shard, KEY, TWO, 0);
            r.r4 = shard.live();
            r.r5 = shard.capacity();
        }
    }
}

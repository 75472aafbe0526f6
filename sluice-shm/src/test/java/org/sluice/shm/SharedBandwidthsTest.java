package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.RecordingListener;

/**
 * A shared limiter of several bandwidths on a manual clock: exact counts, a refusal that
 * spends nothing on the bandwidths that would have admitted, the undo of a charge another
 * charge landed on, the same answers as the in-memory limiter, and the listener.
 */
class SharedBandwidthsTest {

    private static final long MS = 1_000_000L;

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(5_000_000_000L);

    @AfterEach
    void remove() throws Exception {
        files.close();
    }

    private SharedArena arena() {
        return SharedArena.create(files.fresh(), 1 << 20);
    }

    @Test
    void aKeyIsHeldToEveryBandwidthAndTheProbeSaysWhereItStands() {
        try (SharedArena arena = arena()) {
            // 10 per second in bursts of 5, and 2 per second in bursts of 8
            SharedLimiter limiter = arena.limiter("two").slots(1024).bandwidth(Limit.of(10, 5)).bandwidth(Limit.of(2, 8))
                    .clock(clock).build();
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 5, probe)).isTrue();
            assertThat(probe.remaining()).isZero();
            assertThat(probe.resetNanos()).as("the slower bandwidth owes 2.5 s").isEqualTo(2500 * MS);
            assertThat(limiter.tryAcquire("a", 1)).isEqualTo(100 * MS);
            assertThat(limiter.tryAcquire("b", 5)).as("another key is untouched").isZero();
            clock.advanceNanos(300 * MS);
            assertThat(limiter.tryAcquire("a", 3, probe)).isTrue();
            assertThat(limiter.tryAcquire("a", 1, probe)).isFalse();
            assertThat(probe.waitNanos()).as("the second bandwidth binds now").isEqualTo(200 * MS);
            assertThat(limiter.bandwidths()).containsExactly(Limit.of(10, 5), Limit.of(2, 8));
            limiter.reset("a");
            assertThat(limiter.tryAcquire("a", 5)).as("reset refills every bandwidth").isZero();
            assertThatThrownBy(() -> limiter.tryAcquire("a", 6)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("smallest burst of the limiter's bandwidths (5), got 6");
        }
    }

    @Test
    void overTenSecondsEachBandwidthAdmitsExactlyItsBurstPlusItsRate() {
        try (SharedArena arena = arena()) {
            // 4 per second in bursts of 5 and 1 per second in bursts of 10: the second binds over time
            SharedLimiter limiter = arena.limiter("count").slots(1024).bandwidth(Limit.of(4, 5)).bandwidth(Limit.of(1, 10))
                    .clock(clock).build();
            long admitted = 0;
            for (int tick = 0; tick <= 1000; tick++) { // every 10 ms for 10 s, 3 asks each
                for (int ask = 0; ask < 3; ask++) {
                    if (limiter.tryAcquire("k", 1) == 0L) {
                        admitted++;
                    }
                }
                if (tick < 1000) {
                    clock.advanceNanos(10 * MS);
                }
            }
            assertThat(admitted).as("10 + 1 x 10 s, the binding bandwidth's bound, reached exactly").isEqualTo(20);
        }
    }

    @Test
    void aRefusalSpendsNothingOnTheBandwidthsThatWouldHaveAdmitted() {
        try (SharedArena arena = arena()) {
            SharedLimiter limiter = arena.limiter("spend").slots(1024).bandwidth(Limit.of(10, 10)).bandwidth(Limit.of(10, 2))
                    .clock(clock).build();
            SharedLimiter firstOnly = arena.limiter("spend").slots(1024).bandwidth(Limit.of(10, 10)).clock(clock).build();
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 2)).isZero();
            for (int i = 0; i < 50; i++) {
                assertThat(limiter.tryAcquire("a", 1)).as("the second bandwidth refuses").isEqualTo(100 * MS);
            }
            assertThat(firstOnly.tryAcquire("a", 1, probe)).as("the first bandwidth's table, read alone").isTrue();
            assertThat(probe.remaining()).as("10 - the 2 admitted - this 1: the 50 refusals took none").isEqualTo(7L);
        }
    }

    /** The undo of a charge another charge landed on gives back what the readings allow, never the other's time. */
    @Test
    void anUndoAfterAnotherChargeGivesBackOnlyTimeNoOtherChargeSpent() {
        SlotTable table = new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(8)), 0, 8);
        long key = 3L << BucketWord.TIME_BITS;
        long inc = 1000;
        long tol = 5000;
        long ours = ~table.update(key, SlotTable.OP_TAKE, inc, tol, 10_000); // full bucket: base 10,000, tat 11,000
        assertThat(ours).isEqualTo(11_000L);
        table.update(key, SlotTable.OP_CHARGE, inc, tol, 10_500); // another charge on top: 12,000
        ManualClock undoAt = new ManualClock(10_600_000L);
        table.refund(key, ours, inc, tol, undoAt);
        // without ours the other charge alone would have made 11,500; the undo read 10,600, so it may give back
        // 1,000 less the 600 us since our base: 400, leaving 11,600 (100 us still spent, the readings' gap)
        assertThat(table.peekTat(key, tol, 10_600)).isEqualTo(11_600L);

        SlotTable same = new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(8)), 0, 8);
        long mine = ~same.update(key, SlotTable.OP_TAKE, inc, tol, 10_000);
        same.update(key, SlotTable.OP_CHARGE, inc, tol, 10_000);
        same.refund(key, mine, inc, tol, new ManualClock(10_000_000L));
        assertThat(same.peekTat(key, tol, 10_000)).as("one reading: the other charge alone, exactly").isEqualTo(11_000L);

        long again = ~same.update(key, SlotTable.OP_TAKE, inc, tol, 10_000);
        same.refund(key, again, inc, tol, new ManualClock(99_000_000L));
        assertThat(same.peekTat(key, tol, 10_000)).as("the word as written: given back whole").isEqualTo(11_000L);
    }

    @Test
    void theListenerIsToldEveryDecisionEveryWaitAndEveryEviction() throws Exception {
        RecordingListener listener = new RecordingListener();
        List<String> told = listener.told();
        try (SharedArena arena = SharedArena.open(files.fresh(), 1 << 20, true, SharedArena.bootId(), new KeyHash(0x5eedL, 0x5eedL))) {
            SharedLimiter limiter = arena.limiter("told").slots(8).bandwidth(Limit.of(10, 2)).bandwidth(Limit.of(5, 3))
                    .clock(clock).sleeper(clock::advanceNanos).listener(listener).build();
            assertThat(limiter.listener()).isSameAs(listener);
            assertThat(limiter.tryAcquire("a", 2)).isZero();
            assertThat(limiter.tryAcquire("a", 1)).isEqualTo(100 * MS);
            assertThat(limiter.acquire("a", 1, Duration.ofSeconds(1))).isTrue();
            assertThat(told).containsExactly("admitted 2", "refused 1 100", "refused 1 100", "waited 100", "admitted 1");
            told.clear();

            SlotTable band = limiter.bandsForTest().table(0); // 8 slots: two groups of 4
            List<String> group = new ArrayList<>();
            for (int i = 0; group.size() < 5; i++) {
                String k = "key-" + i;
                if (!k.equals("a") && band.groupIndex(arena.keyHash().hash(k)) == band.groupIndex(arena.keyHash().hash("a"))) {
                    group.add(k);
                }
            }
            for (String k : group) {
                limiter.tryAcquire(k, 1);
            }
            assertThat(told).as("a full group of keys in debt: each newcomer past it takes a slot over")
                    .contains("evicted").allMatch(s -> s.equals("evicted") || s.equals("admitted 1"));
        }
    }

    @Test
    void aTableThatGivesUpUnderContentionSaysSo() {
        RecordingListener listener = new RecordingListener();
        SlotTable table = new SlotTable(ByteBuffer.allocateDirect((int) SlotTable.carveBytes(8)), 0, 8, 0, new SlotTable.Events() {
            @Override
            public void contended() {
                listener.contended();
            }
        });
        assertThat(table.update(1L << BucketWord.TIME_BITS, SlotTable.OP_TAKE, 1000, 2000, 0)).as("admitted uncharged").isZero();
        assertThat(listener.told()).containsExactly("contended");
    }

    record Call(int key, long gapMicros, int permits) {
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(0, 2_000_000).edgeCases(c -> c.add(0L)),
                Arbitraries.integers().between(1, 5)).as(Call::new).list().ofMaxSize(150);
    }

    /** One contract, two scopes, two bandwidths: per key, the shared limiter answers as the in-memory one does. */
    @Property(tries = 60)
    void twoBandwidthsAnswerLikeTheInMemoryLimiter(@ForAll("calls") List<Call> calls) {
        Limit perSecond = Limit.of(4, 5);     // 250 ms a permit: whole microseconds
        Limit perMinute = Limit.of(0.5, 12);  // 2 s a permit
        AtomicLong now = new AtomicLong(7_000_000_000L);
        try (SharedArena arena = arena()) {
            KeyedLimit<String> shared = arena.limiter("t").slots(1024).bandwidth(perSecond).bandwidth(perMinute).clock(now::get).build();
            KeyedLimit<String> memory = KeyedLimiter.<String>builder().bandwidth(perSecond).bandwidth(perMinute).clock(now::get)
                    .sweepInterval(Duration.ZERO).build();
            Probe got = new Probe();
            Probe want = new Probe();
            for (Call call : calls) {
                now.addAndGet(call.gapMicros() * 1000);
                String key = "k" + call.key();
                assertThat(shared.tryAcquire(key, call.permits(), got)).isEqualTo(memory.tryAcquire(key, call.permits(), want));
                assertThat(got.waitNanos()).isEqualTo(want.waitNanos());
                assertThat(got.remaining()).isEqualTo(want.remaining());
                assertThat(got.resetNanos()).isEqualTo(want.resetNanos());
            }
        } finally {
            try {
                files.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }
}

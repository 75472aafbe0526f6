package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.Probe;
import org.sluice.testkit.ManualClock;

/**
 * A live limit change of the shared-memory limiter, on a manual clock and real mapped
 * arenas: each strategy converts a key as the in-memory limiter does, every process on the
 * host (here: a second mapping of the file) charges with the new limit from its next call,
 * a process started afterwards takes the host's limit, and bandwidths come and go.
 */
class SharedLiveChangeTest {

    private static final long MS = 1_000_000L;

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(5_000_000_000L);

    @AfterEach
    void remove() throws Exception {
        files.close();
    }

    /** 4 of a burst of 10 spent, then 20 per second in bursts of 20; the next call takes 1: what is left, shared and in memory. */
    private long[] remainingAfterChange(LimitChange change) {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedLimiter shared = arena.limiter("change").slots(64).bandwidth(Limit.of(10, 10)).clock(clock).build();
            KeyedLimiter<String> memory = KeyedLimiter.<String>builder().bandwidth(Limit.of(10, 10)).clock(clock)
                    .sweepInterval(Duration.ZERO).build();
            assertThat(shared.tryAcquire("a", 4)).isZero();
            assertThat(memory.tryAcquire("a", 4)).isZero();
            shared.replaceBandwidths(List.of(Limit.of(20, 20)), change);
            memory.replaceBandwidths(List.of(Limit.of(20, 20)), change);
            assertThat(shared.bandwidths()).containsExactly(Limit.of(20, 20));
            Probe got = new Probe();
            Probe want = new Probe();
            assertThat(shared.tryAcquire("a", 1, got)).isTrue();
            assertThat(memory.tryAcquire("a", 1, want)).isTrue();
            assertThat(shared.tryAcquire("b", 20)).as("a key with no state starts full under the new limit").isZero();
            return new long[] {got.remaining(), want.remaining()};
        }
    }

    @Test
    void eachStrategyConvertsAKeyAsTheInMemoryLimiterDoes() {
        assertThat(remainingAfterChange(LimitChange.RESET)).as("full under the new limit, less the 1").containsExactly(19, 19);
        assertThat(remainingAfterChange(LimitChange.KEEP_REMAINING)).as("the 6 left, less the 1").containsExactly(5, 5);
        assertThat(remainingAfterChange(LimitChange.PROPORTIONAL)).as("60% of 20, less the 1").containsExactly(11, 11);
    }

    @Test
    void everyProcessOnTheHostChargesWithTheNewLimitFromItsNextCall() {
        var file = files.fresh();
        try (SharedArena one = SharedArena.create(file, 1 << 20); SharedArena two = SharedArena.attach(file)) {
            SharedLimiter here = one.limiter("host").slots(64).bandwidth(Limit.of(10, 3)).clock(clock).build();
            SharedLimiter there = two.limiter("host").slots(64).bandwidth(Limit.of(10, 3)).clock(clock).build();
            assertThat(here.tryAcquire("a", 3)).isZero();
            here.replaceBandwidths(List.of(Limit.of(10, 5)), LimitChange.KEEP_REMAINING);
            assertThat(there.bandwidths()).as("read from the arena's record").containsExactly(Limit.of(10, 5));
            assertThat(there.tryAcquire("a", 1)).as("kept: nothing left of the old 3").isEqualTo(100 * MS);
            clock.advanceNanos(200 * MS);
            assertThat(there.tryAcquire("a", 2)).isZero();
            assertThat(here.tryAcquire("a", 1)).isEqualTo(100 * MS);
            assertThatThrownBy(() -> there.tryAcquire("a", 6)).as("the new smallest burst bounds a call")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(5), got 6");

            SharedLimiter late = two.limiter("host").slots(64).bandwidth(Limit.of(1, 1)).clock(clock).build();
            assertThat(late.bandwidths()).as("a limiter built after a change takes the host's limit").containsExactly(Limit.of(10, 5));
            assertThat(late.tryAcquire("a", 1)).isEqualTo(100 * MS);
        }
    }

    @Test
    void aBandwidthAddedStartsFullAndOneDroppedLeavesNothingBehindWhenItComesBack() {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedLimiter limiter = arena.limiter("bands").slots(64).bandwidth(Limit.of(10, 5)).clock(clock).build();
            assertThat(limiter.tryAcquire("a", 2)).isZero();
            limiter.replaceBandwidths(List.of(Limit.of(10, 5), Limit.of(1, 4)), LimitChange.KEEP_REMAINING);
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 3, probe)).as("3 left of the first, the new one full").isTrue();
            assertThat(probe.remaining()).isZero();
            assertThat(limiter.tryAcquire("a", 1)).as("the new bandwidth owes 3 s of its 4, the first 500 ms").isEqualTo(100 * MS);

            limiter.replaceBandwidths(List.of(Limit.of(10, 5)), LimitChange.KEEP_REMAINING);
            clock.advanceNanos(500 * MS);
            limiter.replaceBandwidths(List.of(Limit.of(10, 5), Limit.of(1, 4)), LimitChange.KEEP_REMAINING);
            assertThat(limiter.tryAcquire("a", 4)).as("the second bandwidth starts full again, its old debt gone").isZero();
        }
    }

    @Test
    void aBadChangeChangesNothing() {
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedLimiter limiter = arena.limiter("bad").slots(64).bandwidth(Limit.of(10, 5)).clock(clock).build();
            assertThatThrownBy(() -> limiter.replaceBandwidths(List.of(), LimitChange.RESET)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> limiter.replaceBandwidths(List.of(Limit.of(0.001, 1000)), LimitChange.RESET))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("burst x interval");
            assertThat(limiter.bandwidths()).containsExactly(Limit.of(10, 5));
            assertThat(limiter.tryAcquire("a", 5)).isZero();
        }
    }

    record Call(int key, long gapMicros, int permits) {
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(0, 1_500_000).edgeCases(c -> c.add(0L)),
                Arbitraries.integers().between(1, 5)).as(Call::new).list().ofMaxSize(120);
    }

    /** New limits whose conversion factors (intervals and bursts x 1 or 2) keep every kept room on whole microseconds. */
    private static final List<List<Limit>> TARGETS = List.of(
            List.of(Limit.of(4, 10), Limit.of(0.5, 24)),
            List.of(Limit.of(2, 5)),
            List.of(Limit.of(4, 5), Limit.of(0.5, 12), Limit.of(1, 6)));

    /** One contract across a live change: before, at and after it, per key, the shared limiter answers as the in-memory one. */
    @Property(tries = 60)
    void aLiveChangeAnswersLikeTheInMemoryLimiter(@ForAll("calls") List<Call> calls, @ForAll @IntRange(max = 120) int changeAt,
            @ForAll LimitChange change, @ForAll @IntRange(max = 2) int target) {
        ManualClock now = new ManualClock(7_000_000_000L);
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedLimiter shared = arena.limiter("t").slots(1024).bandwidth(Limit.of(4, 5)).bandwidth(Limit.of(0.5, 12))
                    .clock(now).build();
            KeyedLimiter<String> memory = KeyedLimiter.<String>builder().bandwidth(Limit.of(4, 5)).bandwidth(Limit.of(0.5, 12))
                    .clock(now).sweepInterval(Duration.ZERO).build();
            Probe got = new Probe();
            Probe want = new Probe();
            for (int i = 0; i < calls.size(); i++) {
                Call call = calls.get(i);
                now.advanceNanos(call.gapMicros() * 1000);
                if (i == changeAt) {
                    shared.replaceBandwidths(TARGETS.get(target), change);
                    memory.replaceBandwidths(TARGETS.get(target), change);
                }
                String key = "k" + call.key();
                long permits = Math.min(call.permits(), memory.bandwidths().stream().mapToLong(Limit::burst).min().orElseThrow());
                assertThat(shared.tryAcquire(key, permits, got)).as("call %d", i).isEqualTo(memory.tryAcquire(key, permits, want));
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

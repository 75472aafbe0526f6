package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Probe;

/**
 * sluice-core's in-memory {@link KeyedLimiter} held to {@link KeyedLimitModel}, the model
 * sluice-shm's and sluice-fleet's limiters are held to in their own modules (core cannot
 * run it itself: the testkit depends on core). Two bandwidths, on a manual clock.
 */
class KeyedLimiterModelTest {

    @Provide
    Arbitrary<List<KeyedLimitModel.Step>> steps() {
        return KeyedLimitModel.steps(5, 80);
    }

    @Property(tries = 200)
    void theInMemoryLimiterKeepsTheModel(@ForAll("steps") List<KeyedLimitModel.Step> steps) throws Exception {
        ManualClock clock = new ManualClock(3_000_000_000L);
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder()
                .bandwidth(Limit.of(4, 5))      // 250 ms a permit, bursts of 5
                .bandwidth(Limit.of(0.5, 12))   // 2 s a permit, bursts of 12
                .clock(clock).sleeper(clock::advanceNanos).sweepInterval(Duration.ZERO).build();
        KeyedLimitModel.check(limiter, clock, steps);
    }

    /** The model is not vacuous: a limit that admits everything breaks its bound. */
    @Test
    void aLimitThatAdmitsTooMuchIsRefuted() {
        KeyedLimit<String> everything = new KeyedLimit<>() {
            @Override
            public long tryAcquire(String key, long permits) {
                return 0L;
            }

            @Override
            public boolean tryAcquire(String key, long permits, Probe probe) {
                probe.set(true, 0L, 0L, 0L);
                return true;
            }

            @Override
            public void reset(String key) {
            }

            @Override
            public List<Limit> bandwidths() {
                return List.of(Limit.of(4, 5));
            }
        };
        KeyedLimitModel.Step five = new KeyedLimitModel.Step(KeyedLimitModel.Kind.TRY, 0, 0L, 5, 0L);
        assertThatThrownBy(() -> KeyedLimitModel.check(everything, new ManualClock(0L), List.of(five, five)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("took 10 permits in 0 ns");
    }
}

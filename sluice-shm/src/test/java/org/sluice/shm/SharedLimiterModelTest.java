package org.sluice.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.sluice.core.Limit;
import org.sluice.testkit.KeyedLimitModel;
import org.sluice.testkit.ManualClock;

/**
 * The shared-memory limiter held to {@link KeyedLimitModel}, the model every scope's
 * limiter keeps (the bound, refusals that change nothing, exact probes, blocking and
 * async waits on a manual clock), on a real mapped arena.
 */
class SharedLimiterModelTest {

    @Provide
    Arbitrary<List<KeyedLimitModel.Step>> steps() {
        return KeyedLimitModel.steps(5, 80);
    }

    @Property(tries = 60)
    void theSharedLimiterKeepsTheModel(@ForAll("steps") List<KeyedLimitModel.Step> steps) throws Exception {
        ManualClock clock = new ManualClock(3_000_000_000L);
        Path file = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        try (SharedArena arena = SharedArena.create(file, 1 << 20)) {
            SharedLimiter limiter = arena.limiter("model", 1024, Limit.of(4, 5), clock, clock::advanceNanos);
            KeyedLimitModel.check(limiter, clock, steps);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Two bandwidths, as sluice-core's and sluice-fleet's model tests run: look, charge, undo. */
    @Property(tries = 60)
    void theSharedLimiterOfTwoBandwidthsKeepsTheModel(@ForAll("steps") List<KeyedLimitModel.Step> steps) throws Exception {
        ManualClock clock = new ManualClock(3_000_000_000L);
        Path file = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        try (SharedArena arena = SharedArena.create(file, 1 << 20)) {
            SharedLimiter limiter = arena.limiter("model").slots(1024)
                    .bandwidth(Limit.of(4, 5))      // 250 ms a permit, bursts of 5
                    .bandwidth(Limit.of(0.5, 12))   // 2 s a permit, bursts of 12
                    .clock(clock).sleeper(clock::advanceNanos).build();
            KeyedLimitModel.check(limiter, clock, steps);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

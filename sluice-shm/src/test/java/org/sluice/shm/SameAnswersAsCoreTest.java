package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.sluice.core.BucketTable;

/**
 * One contract for two limiters: for policies in whole microseconds, the shared-memory
 * table answers every charge exactly as sluice-core's in-memory {@link BucketTable}
 * does (same admissions, same waits), given enough slots.
 */
class SameAnswersAsCoreTest {

    private static final long[][] POLICIES = { // increment per unit ns, tolerance ns
            {100_000_000L, 300_000_000L},   // 10/s, burst 3
            {1_000L, 50_000L},              // 1e6/s, burst 50
            {2_500_000_000L, 25_000_000_000L}, // 0.4/s, burst 10
    };

    record Op(int key, long advanceMicros, int cost, int policy) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.integers().between(0, 4),
                Arbitraries.longs().between(0, 3_000_000).edgeCases(c -> c.add(0L)),
                Arbitraries.integers().between(1, 12),
                Arbitraries.integers().between(0, POLICIES.length - 1)).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(200);
    }

    @Property(tries = 100)
    void theSharedTableAnswersLikeTheInMemoryTable(@ForAll("ops") List<Op> ops, @ForAll long startMicros) throws Exception {
        Path file = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        try (SharedArena arena = SharedArena.create(file, 1 << 20)) {
            SharedGcraTable shared = arena.gcraTable("t", 1024);
            BucketTable memory = new BucketTable();
            long now = (startMicros >> 12) * 1000; // any reading, whole microseconds, room to advance
            for (Op op : ops) {
                now += op.advanceMicros() * 1000;
                String key = "tenant-" + op.key() + "/" + op.policy(); // one policy per key, as in use
                long increment = POLICIES[op.policy()][0] * op.cost();
                long tolerance = POLICIES[op.policy()][1];
                long expected = memory.tryCharge(key, increment, tolerance, now);
                assertThat(shared.tryCharge(key, increment, tolerance, now)).as("%s at %d", op, now).isEqualTo(expected);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

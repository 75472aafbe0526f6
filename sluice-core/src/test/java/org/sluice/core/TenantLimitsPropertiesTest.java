package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

class TenantLimitsPropertiesTest {

    /** One arrival: advance the clock by {@code gapNanos}, then send a hook of {@code bytes}. */
    record Arrival(long gapNanos, long bytes) {
    }

    /**
     * The arithmetic written out plainly: two buckets, hook then bytes; a hook
     * admitted on count and refused on bytes keeps its hook charge; an oversize body is
     * admitted only into a full bucket and leaves it exactly empty.
     */
    static final class Reference {
        final long t;
        final long tau;
        final long tauBytes;
        final Limit limit;
        Long hookTat;
        Long byteTat;

        Reference(Limit limit) {
            this.limit = limit;
            this.t = Math.max(1, Math.round(1e9 / limit.rate()));
            this.tau = t * limit.burst();
            this.tauBytes = limit.byteToleranceNanos();
        }

        /** 0 admitted, 1 refused on count, 2 refused on bytes. */
        int hit(long now, long bytes) {
            long tat = hookTat == null ? now : Math.max(hookTat, now);
            long next = tat + t;
            if (next - now > tau) {
                return 1;
            }
            hookTat = next;
            if (bytes == 0 || !limit.hasByteBucket()) {
                return 0;
            }
            long cost = limit.byteIncrementNanos(bytes);
            long btat = byteTat == null ? now : Math.max(byteTat, now);
            if (cost > tauBytes) {
                if (btat > now) {
                    return 2;
                }
                byteTat = now + tauBytes;
                return 0;
            }
            if (btat + cost - now > tauBytes) {
                return 2;
            }
            byteTat = btat + cost;
            return 0;
        }
    }

    @Property(tries = 300)
    void hitAgreesWithThePlainReference(@ForAll @DoubleRange(min = 0.5, max = 50) double rate,
                                        @ForAll @IntRange(min = 1, max = 10) int burst,
                                        @ForAll @IntRange(min = 100, max = 10_000) int bytesPerSecond,
                                        @ForAll @IntRange(min = 1, max = 20_000) int burstBytes,
                                        @ForAll("arrivals") List<Arrival> arrivals) {
        Limit limit = Limit.of(rate, burst).withBytesPerSecond(bytesPerSecond).withBurstBytes(burstBytes);
        TestClock clock = new TestClock(-5_000_000_000L);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        Reference reference = new Reference(limit);
        for (Arrival a : arrivals) {
            clock.advanceNanos(a.gapNanos());
            int expected = reference.hit(clock.nanoTime(), a.bytes());
            TenantDecision got = limits.hit("t", a.bytes());
            int actual = got.admitted() ? 0 : got.scope() == TenantDecision.Scope.TENANT ? 1 : 2;
            assertThat(actual).as("at %d with %d bytes", clock.nanoTime(), a.bytes()).isEqualTo(expected);
        }
    }

    @Provide
    Arbitrary<List<Arrival>> arrivals() {
        Arbitrary<Long> gaps = Arbitraries.oneOf(
                Arbitraries.just(0L),
                Arbitraries.longs().between(1, 10_000_000L),
                Arbitraries.longs().between(10_000_000L, 3_000_000_000L));
        Arbitrary<Long> bytes = Arbitraries.oneOf(
                Arbitraries.just(0L),
                Arbitraries.longs().between(1, 2_000),
                Arbitraries.longs().between(2_000, 40_000));
        return Combinators.combine(gaps, bytes).as(Arrival::new).list().ofMinSize(1).ofMaxSize(200);
    }
}

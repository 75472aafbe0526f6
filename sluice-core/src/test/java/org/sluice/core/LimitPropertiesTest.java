package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class LimitPropertiesTest {

    @Property(tries = 500)
    void parseOfToMapGivesAnEqualLimit(@ForAll("limits") Limit limit) {
        Map<String, Object> rendered = limit.toMap();
        Limit parsed = Limit.parse(rendered, Long.MAX_VALUE);
        assertThat(parsed).isEqualTo(limit);
        assertThat(parsed.toMap()).isEqualTo(rendered);
        assertThat(parsed.intervalNanos()).isEqualTo(limit.intervalNanos());
        assertThat(parsed.byteToleranceNanos()).isEqualTo(limit.byteToleranceNanos());
    }

    @Property(tries = 300)
    void toMapOfParseKeepsEveryValueSupplied(@ForAll("limits") Limit limit) {
        // Render through Strings-free JSON-ish numbers of other types: ints as Integer where they fit,
        // doubles as BigDecimal, and check the parse is the same limit.
        Map<String, Object> retyped = new LinkedHashMap<>();
        limit.toMap().forEach((k, v) -> {
            if (v instanceof Long l && l <= Integer.MAX_VALUE) {
                retyped.put(k, l.intValue());
            } else if (v instanceof Double d) {
                retyped.put(k, new java.math.BigDecimal(d));
            } else {
                retyped.put(k, v);
            }
        });
        assertThat(Limit.parse(retyped, Long.MAX_VALUE)).isEqualTo(limit);
    }

    @Property(tries = 300)
    void byteIncrementIsMonotoneInBytes(@ForAll("limits") Limit limit,
                                        @ForAll("bytes") long a, @ForAll("bytes") long b) {
        long lo = Math.min(a, b);
        long hi = Math.max(a, b);
        assertThat(limit.byteIncrementNanos(lo)).isLessThanOrEqualTo(limit.byteIncrementNanos(hi));
    }

    @Provide
    Arbitrary<Long> bytes() {
        return Arbitraries.longs().between(0, 1L << 40);
    }

    @Provide
    Arbitrary<Limit> limits() {
        Arbitrary<Double> rates = Arbitraries.oneOf(
                Arbitraries.doubles().between(1e-6, 1e9).ofScale(9),
                Arbitraries.integers().between(1, 1_000_000).map(Integer::doubleValue));
        Arbitrary<Integer> bursts = Arbitraries.integers().between(1, Integer.MAX_VALUE);
        Arbitrary<Double> bps = Arbitraries.oneOf(
                Arbitraries.just(Double.NaN),
                Arbitraries.doubles().between(1e-3, 1e12).ofScale(6),
                Arbitraries.longs().between(1, 1L << 40).map(Long::doubleValue));
        Arbitrary<Long> optLong = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1, Long.MAX_VALUE));
        Arbitrary<Integer> optInt = Arbitraries.oneOf(Arbitraries.just(0), Arbitraries.integers().between(1, Integer.MAX_VALUE));
        return Combinators.combine(rates, bursts, bps, optLong, optLong, optInt, optLong)
                .as((rate, burst, bytesPerSecond, burstBytes, maxBody, maxQueue, maxQueueBytes) -> {
                    Limit limit = Limit.of(rate, burst);
                    if (!bytesPerSecond.isNaN()) {
                        limit = limit.withBytesPerSecond(bytesPerSecond);
                        if (burstBytes != 0) {
                            limit = limit.withBurstBytes(burstBytes);
                        }
                    }
                    if (maxBody != 0) {
                        limit = limit.withMaxBodyBytes(maxBody);
                    }
                    if (maxQueue != 0) {
                        limit = limit.withMaxQueue(maxQueue);
                    }
                    if (maxQueueBytes != 0) {
                        limit = limit.withMaxQueueBytes(maxQueueBytes);
                    }
                    return limit;
                });
    }
}

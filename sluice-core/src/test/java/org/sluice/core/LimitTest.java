package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LimitTest {

    private static final long INSTANCE_MAX = 1_048_576;

    private static Map<String, Object> attrs(Object... kv) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            map.put((String) kv[i], kv[i + 1]);
        }
        return map;
    }

    private static String parseError(Map<String, Object> attrs) {
        try {
            Limit.parse(attrs, INSTANCE_MAX);
        } catch (InvalidLimitException e) {
            return e.getMessage();
        }
        throw new AssertionError("parsed without error: " + attrs);
    }

    @Test
    void unknownFieldIsTheFirstInSortedOrderAndCheckedBeforeAnythingElse() {
        assertThat(parseError(attrs("zeta", 1, "rate", -1, "alpha", 2, "brust", 3)))
                .isEqualTo("unknown field \"alpha\"");
        assertThat(parseError(attrs("burst", 5, "rate", 1, "Rate", 1))).isEqualTo("unknown field \"Rate\"");
    }

    @Test
    void requiredFields() {
        assertThat(parseError(attrs())).isEqualTo("rate is required");
        assertThat(parseError(attrs("burst", 5))).isEqualTo("rate is required");
        assertThat(parseError(attrs("rate", 5))).isEqualTo("burst is required");
        assertThat(parseError(attrs("rate", 0, "bytes_per_second", 5))).isEqualTo("burst is required");
    }

    @Test
    void rateMessages() {
        assertThat(parseError(attrs("rate", 0, "burst", 5))).isEqualTo("rate must be a number greater than 0, got 0");
        assertThat(parseError(attrs("rate", -1.5, "burst", 5))).isEqualTo("rate must be a number greater than 0, got -1.5");
        assertThat(parseError(attrs("rate", "5", "burst", 5))).isEqualTo("rate must be a number greater than 0, got \"5\"");
        assertThat(parseError(attrs("rate", true, "burst", 5))).isEqualTo("rate must be a number greater than 0, got true");
        assertThat(parseError(attrs("rate", null, "burst", 5))).isEqualTo("rate must be a number greater than 0, got null");
        assertThat(parseError(attrs("rate", Double.NaN, "burst", 5))).isEqualTo("rate must be a number greater than 0, got NaN");
        assertThat(parseError(attrs("rate", Double.POSITIVE_INFINITY, "burst", 5)))
                .isEqualTo("rate must be a number greater than 0, got Infinity");
        assertThat(parseError(attrs("rate", new BigDecimal("1e400"), "burst", 5)))
                .isEqualTo("rate must be a number greater than 0, got 1E+400");
    }

    @Test
    void burstMessages() {
        assertThat(parseError(attrs("rate", 1, "burst", 0))).isEqualTo("burst must be an integer of at least 1, got 0");
        assertThat(parseError(attrs("rate", 1, "burst", 1.5))).isEqualTo("burst must be an integer of at least 1, got 1.5");
        assertThat(parseError(attrs("rate", 1, "burst", "5"))).isEqualTo("burst must be an integer of at least 1, got \"5\"");
        assertThat(parseError(attrs("rate", 1, "burst", -3L))).isEqualTo("burst must be an integer of at least 1, got -3");
        assertThat(parseError(attrs("rate", 1, "burst", 3_000_000_000L)))
                .isEqualTo("burst must be at most 2147483647, got 3000000000");
    }

    @Test
    void byteMessages() {
        assertThat(parseError(attrs("rate", 1, "burst", 1, "bytes_per_second", 0)))
                .isEqualTo("bytes_per_second must be a number greater than 0, got 0");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "bytes_per_second", "fast")))
                .isEqualTo("bytes_per_second must be a number greater than 0, got \"fast\"");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "burst_bytes", 100)))
                .isEqualTo("burst_bytes needs bytes_per_second");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "bytes_per_second", 10, "burst_bytes", 0)))
                .isEqualTo("burst_bytes must be an integer of at least 1, got 0");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "bytes_per_second", 10, "burst_bytes", 2.5)))
                .isEqualTo("burst_bytes must be an integer of at least 1, got 2.5");
    }

    @Test
    void bodyAndQueueMessages() {
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_body_bytes", INSTANCE_MAX + 1)))
                .isEqualTo("max_body_bytes must be at most 1048576, got 1048577");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_body_bytes", 0)))
                .isEqualTo("max_body_bytes must be an integer of at least 1, got 0");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_queue", 0)))
                .isEqualTo("max_queue must be an integer of at least 1, got 0");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_queue", 1e10)))
                .isEqualTo("max_queue must be at most 2147483647, got 1.0E10");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_queue_bytes", -1)))
                .isEqualTo("max_queue_bytes must be an integer of at least 1, got -1");
        assertThat(parseError(attrs("rate", 1, "burst", 1, "max_queue_bytes", new BigInteger("99999999999999999999"))))
                .isEqualTo("max_queue_bytes must be at most 9223372036854775807, got 99999999999999999999");
    }

    @Test
    void hostileValuesAreCutShortInMessages() {
        String huge = "x".repeat(10_000);
        assertThat(parseError(attrs("rate", huge, "burst", 1)))
                .isEqualTo("rate must be a number greater than 0, got \"" + "x".repeat(63) + "...");
    }

    @Test
    void exceptionNamesTheFieldAndRendersAtAKeyPath() {
        InvalidLimitException e = catchInvalid(attrs("rate", 1, "burst", 0));
        assertThat(e.field()).isEqualTo("burst");
        assertThat(e.isUnknownField()).isFalse();
        assertThat(e.messageAt("rate_limits.tenants.acme"))
                .isEqualTo("rate_limits.tenants.acme.burst must be an integer of at least 1, got 0");
        assertThat(e.messageAt("")).isEqualTo(e.getMessage());
        InvalidLimitException unknown = catchInvalid(attrs("rate", 1, "burst", 1, "brust", 1));
        assertThat(unknown.field()).isEqualTo("brust");
        assertThat(unknown.isUnknownField()).isTrue();
        assertThat(unknown.messageAt("rate_limits.default")).isEqualTo("unknown field \"rate_limits.default.brust\"");
        assertThat(catchInvalid(attrs("burst", 1)).messageAt("rate_limits.default"))
                .isEqualTo("rate_limits.default.rate is required");
        assertThat(e).isInstanceOf(IllegalArgumentException.class);
    }

    private static InvalidLimitException catchInvalid(Map<String, Object> attrs) {
        try {
            Limit.parse(attrs, INSTANCE_MAX);
        } catch (InvalidLimitException e) {
            return e;
        }
        throw new AssertionError("parsed without error: " + attrs);
    }

    @Test
    void integralNumbersOfAnyTypeCountAsIntegers() {
        Limit expected = Limit.of(2.5, 5).withBytesPerSecond(1000).withBurstBytes(4000)
                .withMaxBodyBytes(1000).withMaxQueue(7).withMaxQueueBytes(9000);
        Map<String, Object> a = attrs("rate", 2.5, "burst", 5.0, "bytes_per_second", 1000,
                "burst_bytes", new BigDecimal("4000.000"), "max_body_bytes", BigInteger.valueOf(1000),
                "max_queue", 7L, "max_queue_bytes", (short) 9000);
        assertThat(Limit.parse(a, INSTANCE_MAX)).isEqualTo(expected);
    }

    @Test
    void maxBodyBytesMayEqualTheInstanceMaximum() {
        assertThat(Limit.parse(attrs("rate", 1, "burst", 1, "max_body_bytes", INSTANCE_MAX), INSTANCE_MAX).maxBodyBytes())
                .hasValue(INSTANCE_MAX);
    }

    @Test
    void builderValidatesWithTheSameMessages() {
        assertThatThrownBy(() -> Limit.of(0, 1)).isInstanceOf(InvalidLimitException.class)
                .hasMessage("rate must be a number greater than 0, got 0.0");
        assertThatThrownBy(() -> Limit.of(1, 0)).hasMessage("burst must be an integer of at least 1, got 0");
        assertThatThrownBy(() -> Limit.of(1, 1).withBurstBytes(10)).hasMessage("burst_bytes needs bytes_per_second");
        assertThatThrownBy(() -> Limit.of(1, 1).withBytesPerSecond(-1))
                .hasMessage("bytes_per_second must be a number greater than 0, got -1.0");
        assertThatThrownBy(() -> Limit.of(1, 1).withMaxQueue(0)).hasMessage("max_queue must be an integer of at least 1, got 0");
        assertThatThrownBy(() -> Limit.of(1, 1).withMaxQueueBytes(0))
                .hasMessage("max_queue_bytes must be an integer of at least 1, got 0");
        assertThatThrownBy(() -> Limit.of(1, 1).withMaxBodyBytes(0))
                .hasMessage("max_body_bytes must be an integer of at least 1, got 0");
    }

    @Test
    void toMapRendersSnakeCaseWithIntegersAsLongs() {
        Limit limit = Limit.of(100, 50).withBytesPerSecond(2.5e6).withMaxQueue(3);
        assertThat(limit.toMap()).containsExactly(
                Map.entry("rate", 100L), Map.entry("burst", 50L),
                Map.entry("bytes_per_second", 2_500_000L), Map.entry("max_queue", 3L));
        assertThat(Limit.of(0.5, 1).toMap()).containsExactly(Map.entry("rate", 0.5), Map.entry("burst", 1L));
        assertThat(Limit.parse(limit.toMap(), INSTANCE_MAX)).isEqualTo(limit);
        assertThat(limit.toString()).isEqualTo("Limit{rate=100, burst=50, bytes_per_second=2500000, max_queue=3}");
    }

    @Test
    void optionalsAreEmptyUnlessSet() {
        Limit limit = Limit.of(1, 1);
        assertThat(limit.bytesPerSecond()).isEmpty();
        assertThat(limit.burstBytes()).isEmpty();
        assertThat(limit.maxBodyBytes()).isEmpty();
        assertThat(limit.maxQueue()).isEmpty();
        assertThat(limit.maxQueueBytes()).isEmpty();
        assertThat(limit.effectiveBurstBytes()).isZero();
        assertThat(limit.hasByteBucket()).isFalse();
        assertThat(limit.hasQueueLimit()).isFalse();
        assertThat(limit.byteIncrementNanos(100)).isZero();
    }

    @Test
    void equalityCoversEveryField() {
        Limit base = Limit.of(10, 5);
        assertThat(base).isEqualTo(Limit.of(10, 5)).hasSameHashCodeAs(Limit.of(10, 5));
        assertThat(base).isNotEqualTo(Limit.of(10, 6));
        assertThat(base).isNotEqualTo(Limit.of(10.5, 5));
        assertThat(base).isNotEqualTo(base.withBytesPerSecond(1));
        assertThat(base.withBytesPerSecond(1)).isNotEqualTo(base.withBytesPerSecond(1).withBurstBytes(1));
        assertThat(base).isNotEqualTo(base.withMaxBodyBytes(1));
        assertThat(base).isNotEqualTo(base.withMaxQueue(1));
        assertThat(base).isNotEqualTo(base.withMaxQueueBytes(1));
    }

    @Test
    void hookPolicyIsIntegerNanoseconds() {
        Limit limit = Limit.of(100, 50);
        assertThat(limit.intervalNanos()).isEqualTo(10_000_000L);
        assertThat(limit.toleranceNanos()).isEqualTo(500_000_000L);
        assertThat(Limit.of(0.5, 1).intervalNanos()).isEqualTo(2_000_000_000L);
        assertThat(Limit.of(3, 1).intervalNanos()).isEqualTo(333_333_333L);
        assertThat(Limit.of(1e12, 1).intervalNanos()).isEqualTo(1L);
        assertThat(Limit.of(Double.MIN_VALUE, 1).intervalNanos()).isEqualTo(Long.MAX_VALUE / 4);
    }

    @ParameterizedTest
    @CsvSource({
            // bytes_per_second, picos/byte, bytes charged, increment ns
            "1000,        1000000000, 1,        1000000",
            "1e6,         1000000,    1500,     1500000",
            "1e9,         1000,       7,        7",
            "4e9,         250,        3,        1",   // 0.75 ns rounds to 1
            "4e9,         250,        2,        1",   // 0.5 ns rounds half up
            "4e9,         250,        1,        0",   // 0.25 ns rounds to 0
            "3e9,         333,        3000000,  999000",
            "2.5e12,      1,          10,       0",
    })
    void byteIncrementsArePicosecondExact(double bps, long picos, long bytes, long nanos) {
        Limit limit = Limit.of(1, 1).withBytesPerSecond(bps);
        assertThat(limit.picosPerByte()).isEqualTo(picos);
        assertThat(limit.byteIncrementNanos(bytes)).isEqualTo(nanos);
    }

    @Test
    void byteToleranceDefaultsToOneSecondsWorth() {
        Limit limit = Limit.of(1, 1).withBytesPerSecond(1000);
        assertThat(limit.burstBytes()).isEmpty();
        assertThat(limit.effectiveBurstBytes()).isEqualTo(1000);
        assertThat(limit.byteToleranceNanos()).isEqualTo(1_000_000_000L);
        Limit configured = limit.withBurstBytes(250);
        assertThat(configured.burstBytes()).hasValue(250);
        assertThat(configured.byteToleranceNanos()).isEqualTo(250_000_000L);
        assertThat(Limit.of(1, 1).withBytesPerSecond(0.25).effectiveBurstBytes()).isEqualTo(1);
    }

    @Test
    void byteIncrementSaturatesInsteadOfOverflowing() {
        Limit slow = Limit.of(1, 1).withBytesPerSecond(1e-3);
        assertThat(slow.byteIncrementNanos(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(slow.byteToleranceNanos()).isEqualTo(1_000_000_000_000L); // burst of 1 byte = 1000 s
    }

    @Test
    void parseDoesNotMutateOrKeepTheInput() {
        Map<String, Object> input = new HashMap<>(attrs("rate", 1, "burst", 2));
        Limit limit = Limit.parse(input, INSTANCE_MAX);
        input.put("burst", 99);
        assertThat(limit.burst()).isEqualTo(2);
    }
}

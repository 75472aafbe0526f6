package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for {@link Limit#parse}: JSON-shaped attrs built from fuzzer bytes (known
 * and unknown keys; integers, longs, doubles including NaN and infinities, big numbers,
 * strings, booleans, nulls, lists). The contract: a {@link Limit} whose rendering parses
 * back to an equal limit, or an {@link InvalidLimitException} naming a field. Any other
 * exception is a finding.
 *
 * <p>Without {@code JAZZER_FUZZ=1} this runs once per checked-in input under {@code
 * src/test/resources/org/sluice/core/LimitParseFuzzTestInputs/}; {@code
 * sluice-bench/scripts/fuzz.sh} runs it as a fuzzer.
 */
@Tag("fuzz")
class LimitParseFuzzTest {

    private static final List<String> KEYS = new ArrayList<>(Limit.FIELDS);

    @FuzzTest(maxDuration = "30s")
    void parseGivesALimitOrANamedProblem(FuzzedDataProvider data) {
        long instanceMax = data.consumeBoolean() ? data.consumeLong() : 1L << 20;
        int entries = data.consumeInt(0, 9);
        Map<String, Object> attrs = new HashMap<>();
        for (int i = 0; i < entries; i++) {
            String key = data.consumeInt(0, 7) == 0 ? data.consumeString(12) : data.pickValue(KEYS);
            attrs.put(key, value(data));
        }
        Limit limit;
        try {
            limit = Limit.parse(attrs, instanceMax);
        } catch (InvalidLimitException problem) {
            assertThat(problem.getMessage()).isNotBlank();
            assertThat(problem.field()).isNotNull();
            if (!problem.isUnknownField()) {
                assertThat(problem.getMessage()).startsWith(problem.field());
            }
            return;
        }
        assertThat(limit.intervalNanos()).isPositive();
        assertThat(limit.toleranceNanos()).isGreaterThanOrEqualTo(limit.intervalNanos());
        assertThat(limit.byteIncrementNanos(data.consumeLong())).isNotNegative();
        assertThat(Limit.parse(limit.toMap(), instanceMax)).isEqualTo(limit);
    }

    private static Object value(FuzzedDataProvider data) {
        switch (data.consumeInt(0, 11)) {
            case 0: return data.consumeInt();
            case 1: return data.consumeLong();
            case 2: return data.consumeDouble();
            case 3: return data.consumeRegularDouble();
            case 4: return data.consumeFloat();
            case 5: return bigInteger(data.consumeBytes(24));
            case 6: return new BigDecimal(BigInteger.valueOf(data.consumeLong()), data.consumeInt(-400, 400));
            case 7: return data.consumeString(16);
            case 8: return data.consumeBoolean();
            case 9: return null;
            case 10: return (short) data.consumeShort();
            default: return List.of(data.consumeInt());
        }
    }

    private static BigInteger bigInteger(byte[] twosComplement) {
        return twosComplement.length == 0 ? BigInteger.ZERO : new BigInteger(twosComplement);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * {@code sluice-received-at} is written digit by digit ({@link OutboundHeaders#receivedAt}):
 * it must agree with {@link OutboundHeaders#RECEIVED_AT_FORMAT}, the contract's pattern, for
 * every instant.
 */
class ReceivedAtPropertiesTest {

    /** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years written as four plain digits. */
    private static final long FIRST_FOUR_DIGIT_MS = -62_167_219_200_000L;
    private static final long LAST_FOUR_DIGIT_MS = 253_402_300_799_999L;

    private static String formatter(long epochMillis) {
        return OutboundHeaders.RECEIVED_AT_FORMAT.format(Instant.ofEpochMilli(epochMillis));
    }

    @Property(tries = 5000)
    void everyInstantOfAFourDigitYearIsWrittenAsTheFormatterWritesIt(
            @ForAll @LongRange(min = FIRST_FOUR_DIGIT_MS, max = LAST_FOUR_DIGIT_MS) long epochMillis) {
        assertThat(OutboundHeaders.receivedAt(epochMillis)).isEqualTo(formatter(epochMillis)).hasSize(24);
    }

    @Property(tries = 3000)
    void instantsNearNowAgreeToTheMillisecond(@ForAll @LongRange(min = 1_700_000_000_000L, max = 2_100_000_000_000L) long epochMillis) {
        assertThat(OutboundHeaders.receivedAt(epochMillis)).isEqualTo(formatter(epochMillis));
    }

    @Property(tries = 2000)
    void anyMillisecondCountAgreesWithTheFormatter(@ForAll long epochMillis) {
        assertThat(OutboundHeaders.receivedAt(epochMillis)).isEqualTo(formatter(epochMillis));
    }

    @Example
    void theEdgesOfTheFourDigitYearsAndOfADayAgree() {
        long[] edges = {FIRST_FOUR_DIGIT_MS - 1, FIRST_FOUR_DIGIT_MS, LAST_FOUR_DIGIT_MS, LAST_FOUR_DIGIT_MS + 1,
            -1, 0, 86_399_999, 86_400_000, 951_782_400_000L /* 2000-02-29 */, 4_107_542_399_999L /* 2100-02-28T23:59:59.999 */};
        for (long ms : edges) {
            assertThat(OutboundHeaders.receivedAt(ms)).as("%d", ms).isEqualTo(formatter(ms));
        }
        assertThat(OutboundHeaders.receivedAt(FIRST_FOUR_DIGIT_MS)).isEqualTo("0000-01-01T00:00:00.000Z");
        assertThat(OutboundHeaders.receivedAt(LAST_FOUR_DIGIT_MS)).isEqualTo("9999-12-31T23:59:59.999Z");
        assertThat(OutboundHeaders.receivedAt(-1)).isEqualTo("1969-12-31T23:59:59.999Z");
    }
}

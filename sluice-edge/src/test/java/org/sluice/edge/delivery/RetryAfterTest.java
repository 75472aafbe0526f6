package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

    /** Sun, 06 Nov 1994 08:49:37 GMT. */
    private static final Clock NOW = Clock.fixed(Instant.parse("1994-11-06T08:49:37Z"), ZoneOffset.UTC);

    @Test
    void deltaSecondsAreMilliseconds() {
        assertThat(RetryAfter.parseMillis("120", NOW)).isEqualTo(120_000);
        assertThat(RetryAfter.parseMillis("0", NOW)).isZero();
        assertThat(RetryAfter.parseMillis(" \t5 ", NOW)).isEqualTo(5_000);
        assertThat(RetryAfter.parseMillis("007", NOW)).isEqualTo(7_000);
    }

    @Test
    void hugeDeltaSecondsSaturateInsteadOfOverflowing() {
        assertThat(RetryAfter.parseMillis("9223372036854775", NOW)).isEqualTo(9_223_372_036_854_775_000L);
        assertThat(RetryAfter.parseMillis("9223372036854776", NOW)).isEqualTo(Long.MAX_VALUE);
        assertThat(RetryAfter.parseMillis("99999999999999999999999999999", NOW)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void everyHttpDateFormIsRead() {
        assertThat(RetryAfter.parseMillis("Sun, 06 Nov 1994 08:50:07 GMT", NOW)).isEqualTo(30_000);
        assertThat(RetryAfter.parseMillis("Sunday, 06-Nov-94 08:50:07 GMT", NOW)).isEqualTo(30_000);
        assertThat(RetryAfter.parseMillis("Sun Nov  6 08:50:07 1994", NOW)).isEqualTo(30_000);
        assertThat(RetryAfter.parseMillis("Mon, 07 Nov 1994 08:49:37 GMT", NOW)).isEqualTo(86_400_000);
    }

    @Test
    void aDateInThePastMeansNoWait() {
        assertThat(RetryAfter.parseMillis("Sat, 05 Nov 1994 08:49:37 GMT", NOW)).isZero();
        assertThat(RetryAfter.parseMillis("Thu, 01 Jan 1970 00:00:00 GMT", NOW)).isZero();
    }

    @Test
    void aFarFutureDateIsAHugeWaitForThePolicyToCap() {
        assertThat(RetryAfter.parseMillis("Fri, 31 Dec 9999 23:59:59 GMT", NOW)).isGreaterThan(200_000_000_000_000L);
    }

    @Test
    void twoDigitYearsAreReadWithinFiftyYearsAhead() {
        // now is 1994: "44" is 2044 (50 years ahead, not more); "45" would be 2045, so it is 1945
        assertThat(RetryAfter.parseMillis("Sunday, 06-Nov-44 08:49:37 GMT", NOW)).isEqualTo(1_577_923_200_000L);
        assertThat(RetryAfter.parseMillis("Tuesday, 06-Nov-45 08:49:37 GMT", NOW)).isZero();
        assertThat(RetryAfter.parseMillis("Monday, 06-Nov-44 08:49:37 GMT", NOW)).isEqualTo(RetryAfter.NONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "-5", "+5", "1.5", "1e3", "5s", "0x10", "soon", "١٢", // Arabic-Indic digits
            "Mon, 06 Nov 1994 08:50:07 GMT", // wrong weekday
            "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 32 Nov 1994 08:00:00 GMT", "06 Nov 1994",
            "Sun, 06 Nov 1994 08:50:07 GMT, Sun, 06 Nov 1994 08:50:07 GMT"})
    void unreadableValuesAreIgnored(String value) {
        assertThat(RetryAfter.parseMillis(value, NOW)).isEqualTo(RetryAfter.NONE);
    }

    @Test
    void anAbsentOrOverlongValueIsIgnoredUnread() {
        assertThat(RetryAfter.parseMillis(null, NOW)).isEqualTo(RetryAfter.NONE);
        assertThat(RetryAfter.parseMillis("1".repeat(RetryAfter.MAX_LENGTH + 1), NOW)).isEqualTo(RetryAfter.NONE);
        assertThat(RetryAfter.parseMillis(" ".repeat(10_000) + "5", NOW)).isEqualTo(RetryAfter.NONE);
    }
}

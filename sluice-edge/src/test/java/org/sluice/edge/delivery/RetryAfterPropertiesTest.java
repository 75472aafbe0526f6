package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

/** Retry-After comes from destinations: any text is answered without an exception. */
class RetryAfterPropertiesTest {

    private static final Clock NOW = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);

    @Property(tries = 3000)
    void anyTextIsIgnoredOrANonNegativeWait(@ForAll @StringLength(max = 100) String value) {
        long ms = RetryAfter.parseMillis(value, NOW);
        assertThat(ms == RetryAfter.NONE || ms >= 0).as(value).isTrue();
    }

    @Property(tries = 1000)
    void deltaSecondsAreExact(@ForAll @LongRange(min = 0, max = 9_223_372_036_854_775L) long seconds) {
        assertThat(RetryAfter.parseMillis(Long.toString(seconds), NOW)).isEqualTo(seconds * 1000);
    }

    @Property(tries = 1000)
    void anImfFixdateAheadIsThatManyWholeSeconds(@ForAll @LongRange(min = 0, max = 400L * 24 * 3600) long seconds) {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.instant().plusSeconds(seconds).atZone(ZoneOffset.UTC));
        assertThat(RetryAfter.parseMillis(date, NOW)).as(date).isEqualTo(seconds * 1000);
    }
}

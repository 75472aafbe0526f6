package org.sluice.edge.delivery;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * Reads a destination's {@code Retry-After} header: delta-seconds ({@code 120}) or an
 * HTTP-date in any of the three forms HTTP recipients must accept (IMF-fixdate
 * {@code Sun, 06 Nov 1994 08:49:37 GMT}, the obsolete RFC 850 form
 * {@code Sunday, 06-Nov-94 08:49:37 GMT}, and asctime {@code Sun Nov  6 08:49:37 1994}).
 *
 * <p>The header comes from a destination and is untrusted: anything unreadable (negative
 * or signed numbers, fractions, garbage, a value longer than {@value #MAX_LENGTH}
 * characters, a date whose weekday does not match) is ignored ({@link #NONE}); a number
 * too large for a {@code long} of milliseconds saturates at {@link Long#MAX_VALUE}, to be
 * capped by {@link RetryPolicy}; a date in the past means no wait (0).
 *
 * <p>HTTP-dates need the wall clock, hence an {@link InstantSource} for "now".
 */
public final class RetryAfter {

    /** The answer for a header that is absent or unreadable. */
    public static final long NONE = -1L;
    /** Longest header value read; an HTTP-date is 29 characters. */
    public static final int MAX_LENGTH = 64;

    private static final DateTimeFormatter ASCTIME = new DateTimeFormatterBuilder()
            .appendPattern("EEE MMM")
            .appendLiteral(' ')
            .padNext(2).appendValue(ChronoField.DAY_OF_MONTH)
            .appendPattern(" HH:mm:ss yyyy")
            .toFormatter(Locale.US).withZone(ZoneOffset.UTC);

    private RetryAfter() {
    }

    /** The wait in milliseconds that {@code value} asks for at {@code now}, or {@link #NONE}. */
    public static long parseMillis(String value, InstantSource now) {
        if (value == null || value.length() > MAX_LENGTH) {
            return NONE;
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return NONE;
        }
        if (isDigits(v)) {
            return secondsToMillis(v);
        }
        Instant at = httpDate(v, now.instant());
        if (at == null) {
            return NONE;
        }
        long ms;
        try {
            ms = Math.subtractExact(at.toEpochMilli(), now.millis());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, ms);
    }

    private static boolean isDigits(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static long secondsToMillis(String digits) {
        long seconds = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = digits.charAt(i) - '0';
            if (seconds > (Long.MAX_VALUE / 1000 - d) / 10) {
                return Long.MAX_VALUE;
            }
            seconds = seconds * 10 + d;
        }
        return seconds * 1000;
    }

    private static Instant httpDate(String v, Instant now) {
        try {
            return ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeException notImf) {
            // fall through to the obsolete forms
        }
        try {
            return rfc850(now).parse(v, ZonedDateTime::from).toInstant();
        } catch (DateTimeException notRfc850) {
            // fall through
        }
        try {
            return ZonedDateTime.parse(v, ASCTIME).toInstant();
        } catch (DateTimeException notAsctime) {
            return null;
        }
    }

    /**
     * RFC 850 dates carry two-digit years; HTTP reads one that would be more than 50 years
     * ahead as the latest past year with those digits, i.e. a window of 100 years ending 50
     * years from now.
     */
    private static DateTimeFormatter rfc850(Instant now) {
        int base = now.atOffset(ZoneOffset.UTC).getYear() - 49;
        return new DateTimeFormatterBuilder()
                .appendPattern("EEEE, dd-MMM-")
                .appendValueReduced(ChronoField.YEAR, 2, 2, LocalDate.of(base, 1, 1))
                .appendPattern(" HH:mm:ss 'GMT'")
                .toFormatter(Locale.US).withZone(ZoneOffset.UTC);
    }
}

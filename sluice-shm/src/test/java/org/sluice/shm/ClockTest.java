package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/** Time as processes see it: readings that disagree, a truncated field that wraps, negative readings. */
class ClockTest {

    private static final long PERIOD_NANOS = BucketWord.PERIOD_MICROS * 1000;

    private final ShmFiles files = new ShmFiles();
    private SharedArena arena;

    @BeforeEach
    void open() {
        arena = SharedArena.create(files.fresh(), 1 << 20);
    }

    @AfterEach
    void close() throws Exception {
        arena.close();
        files.close();
    }

    private SharedRate rate(ManualClock clock) {
        return arena.rate("api", 5, Duration.ofSeconds(10), 64, clock); // interval 2 s, tolerance 10 s
    }

    @Test
    void aStoredTimeAheadOfTheCallerNeverRefills() {
        long t = 7_000_000_000_000L;
        ManualClock later = new ManualClock(t + 3_000_000); // a process that read the clock 3 ms later
        ManualClock earlier = new ManualClock(t);
        SharedRate a = rate(later);
        SharedRate b = rate(earlier);
        a.allow("k", 5);
        assertThat(b.allow("k")).isFalse();
        assertThat(b.remaining("k")).isZero();
        assertThat(b.retryAfter("k")).isEqualTo(2.0);
        assertThat(b.allow("k", 6)).as("not even an oversized charge, which needs a full bucket").isFalse();
    }

    @Test
    void aReadingAnHourBehindStillNeverRefills() {
        long t = 7_000_000_000_000L;
        ManualClock later = new ManualClock(t + Duration.ofHours(1).toNanos());
        SharedRate a = rate(later);
        SharedRate b = rate(new ManualClock(t));
        a.allow("k", 5);
        assertThat(b.allow("k")).isFalse();
        assertThat(b.remaining("k")).isZero();
        later.advance(Duration.ofSeconds(2));
        assertThat(a.allow("k")).isTrue();
        assertThat(a.allow("k")).isFalse();
    }

    @Test
    void partialDebtAheadOfTheCallerIsMeasuredFromTheCallersClock() {
        long t = 7_000_000_000_000L;
        SharedRate a = rate(new ManualClock(t + 1_000_000)); // 1 ms ahead
        SharedRate b = rate(new ManualClock(t));
        a.allow("k", 2); // tat = t + 1 ms + 4 s
        assertThat(b.remaining("k")).isEqualTo(3.0 - 0.0005);
    }

    @Test
    void theTruncatedTimeWrapsWithoutLosingDebt() {
        // the 40-bit microsecond field rolls over at a multiple of 2^40 us; straddle it
        long wrapAt = 3 * PERIOD_NANOS;
        ManualClock clock = new ManualClock(wrapAt - Duration.ofSeconds(3).toNanos());
        SharedRate r = rate(clock);
        r.allow("k", 5); // tat = wrap + 7 s, stored as 7 s past zero
        long word = r.table().word(r.table().homeSlot(r.hash("k")));
        assertThat(word & BucketWord.TIME_MASK).isEqualTo(7_000_000);
        assertThat(r.remaining("k")).isZero();
        clock.advance(Duration.ofSeconds(4)); // now 1 s past the wrap: 4 s refilled, 6 s of debt left
        assertThat(r.remaining("k")).isEqualTo(2.0);
        assertThat(r.retryAfter("k")).isZero();
        assertThat(r.allow("k", 2)).isTrue();
        assertThat(r.allow("k")).isFalse();
        assertThat(r.retryAfter("k")).isEqualTo(2.0);
        clock.advance(Duration.ofSeconds(10));
        assertThat(r.remaining("k")).isEqualTo(5.0);
    }

    @Test
    void aKeyIdleForLessThanHalfThePeriodReadsFull() {
        ManualClock clock = new ManualClock(11_000_000_000_000L);
        SharedRate r = rate(clock);
        r.allow("k", 5);
        clock.advanceNanos(PERIOD_NANOS / 2 - 1_000);
        assertThat(r.remaining("k")).isEqualTo(5.0);
    }

    @Test
    void aKeyIdleForLongerThanThePeriodUsuallyReadsFull() {
        ManualClock clock = new ManualClock(11_000_000_000_000L);
        SharedRate r = rate(clock);
        r.allow("k", 5);
        clock.advanceNanos(PERIOD_NANOS + PERIOD_NANOS / 3);
        assertThat(r.remaining("k")).isEqualTo(5.0);
    }

    @Test
    void documentedLimit_aKeyIdleForAlmostExactlyOnePeriodReadsAsInDebtOnce() {
        // docs/shm.md "Clock": the one case the 40-bit field gets wrong
        ManualClock clock = new ManualClock(11_000_000_000_000L);
        SharedRate r = rate(clock);
        r.allow("k", 5); // tat = t + 10 s
        clock.advanceNanos(PERIOD_NANOS + Duration.ofSeconds(4).toNanos()); // stored tat now reads 6 s ahead
        assertThat(r.remaining("k")).isEqualTo(2.0); // should be 5
        assertThat(r.allow("k", 2)).isTrue(); // and the next admission rewrites the word correctly
        clock.advance(Duration.ofSeconds(10));
        assertThat(r.remaining("k")).isEqualTo(5.0);
    }

    @Test
    void negativeClockReadingsWork() {
        ManualClock clock = new ManualClock(-Duration.ofSeconds(5).toNanos());
        SharedRate r = rate(clock);
        r.allow("k", 5);
        assertThat(r.allow("k")).isFalse();
        clock.advance(Duration.ofSeconds(6)); // crosses zero
        assertThat(r.remaining("k")).isEqualTo(3.0);
    }

    @Test
    void theSystemClockIsTheDefault() {
        SharedRate r = arena.rate("sys", 2, Duration.ofHours(1));
        assertThat(r.allow("k")).isTrue();
        assertThat(r.allow("k")).isTrue();
        assertThat(r.allow("k")).isFalse(); // an hour per token: cannot refill during a test
        assertThat(r.retryAfter("k")).isGreaterThan(1700.0).isLessThanOrEqualTo(1800.0);
    }
}

package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.FailureStreak.NO_WRITE;
import static org.sluice.edge.store.DestinationPauses.NOT_FAILING;

import org.junit.jupiter.api.Test;
import org.sluice.edge.store.DisabledDestination;

/**
 * What {@link FailureStreak#toStore} asks a pass to write, on times given by hand: the rules of
 * its class comment one by one, including the fleet's (a start or a clear stored by another
 * node). The same rules against real stores and a real receiver: {@link StoredFailureRunContract}.
 */
class FailureStreakTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    private final FailureStreak streak = new FailureStreak(HOUR);

    /** One pass: what it would write, taken as written. */
    private long pass(long stored, long nowMs) {
        streak.held(false);
        long write = streak.toStore(stored, nowMs);
        if (write != NO_WRITE) {
            streak.stored(write);
        }
        return write;
    }

    @Test
    void aRunIsStoredOnceItHasLastedAMinuteAndClearedByTheFirstSuccess() {
        streak.failed(T0, "HTTP 503");
        assertThat(pass(NOT_FAILING, T0 + MINUTE - 1)).isEqualTo(NO_WRITE);
        streak.failed(T0 + MINUTE - 1, "HTTP 503");
        assertThat(pass(NOT_FAILING, T0 + MINUTE)).isEqualTo(T0);
        streak.failed(T0 + 2 * MINUTE, "HTTP 503");
        assertThat(pass(T0, T0 + 2 * MINUTE)).as("one write per run, not per failure").isEqualTo(NO_WRITE);
        streak.succeeded();
        assertThat(pass(T0, T0 + 3 * MINUTE)).isEqualTo(NOT_FAILING);
        assertThat(pass(NOT_FAILING, T0 + 4 * MINUTE)).isEqualTo(NO_WRITE);
    }

    @Test
    void aDestinationFailingEveryOtherAttemptWritesNothing() {
        for (long t = T0; t < T0 + HOUR; t += 10_000) {
            streak.failed(t, "HTTP 503");
            streak.succeeded();
            assertThat(pass(NOT_FAILING, t + 5_000)).isEqualTo(NO_WRITE);
        }
    }

    @Test
    void aStoredStartReadAtBootIsTheRunsStartAndItsFirstFailureAnHourOnDisables() {
        assertThat(pass(T0, T0 + 59 * MINUTE)).isEqualTo(NO_WRITE);
        assertThat(streak.since()).isEqualTo(T0);
        assertThat(streak.disableDue(T0 + 59 * MINUTE)).as("only a failure makes it due").isNull();
        streak.failed(T0 + HOUR, "connect refused");
        assertThat(streak.disableDue(T0 + HOUR)).isEqualTo(new DisabledDestination(T0 + HOUR, "connect refused"));
    }

    @Test
    void aSuccessBeforeTheFirstPassClearsTheStartStoredBeforeTheRestart() {
        streak.succeeded();
        assertThat(pass(T0, T0 + HOUR)).isEqualTo(NOT_FAILING);
        streak.failed(T0 + HOUR, "HTTP 503");
        assertThat(streak.disableDue(T0 + HOUR)).isNull();
    }

    @Test
    void aSuccessFollowedByAYoungRunClearsTheOldStartAndStoresTheNewOneOnceOldEnough() {
        pass(T0, T0);
        streak.succeeded();
        streak.failed(T0 + 10 * MINUTE, "HTTP 503");
        assertThat(pass(T0, T0 + 10 * MINUTE)).isEqualTo(NOT_FAILING);
        assertThat(pass(NOT_FAILING, T0 + 11 * MINUTE)).isEqualTo(T0 + 10 * MINUTE);
    }

    @Test
    void aStartClearedByAnotherNodeEndsTheRunHereAndOneStoredByAnotherNodeIsTakenOver() {
        streak.failed(T0, "HTTP 503");
        assertThat(pass(NOT_FAILING, T0 + MINUTE)).isEqualTo(T0);
        assertThat(pass(NOT_FAILING, T0 + 2 * MINUTE)).as("cleared elsewhere: not written again").isEqualTo(NO_WRITE);
        assertThat(streak.since()).isEqualTo(-1);
        streak.failed(T0 + 3 * MINUTE, "HTTP 503");
        assertThat(pass(T0 + 2 * MINUTE, T0 + 3 * MINUTE)).as("another node's later start").isEqualTo(NO_WRITE);
        assertThat(streak.since()).isEqualTo(T0 + 2 * MINUTE);
        streak.failed(T0 + 2 * MINUTE + HOUR, "HTTP 503");
        assertThat(streak.disableDue(T0 + 2 * MINUTE + HOUR)).isNotNull();
    }

    @Test
    void aClearThatFailedToBeWrittenIsAskedForAgainEvenWhenANewRunBeganMeanwhile() {
        pass(T0, T0);
        streak.succeeded();
        assertThat(streak.toStore(T0, T0 + MINUTE)).isEqualTo(NOT_FAILING);
        streak.notStored();
        streak.failed(T0 + MINUTE + 1_000, "HTTP 503"); // too young to store, and the old start must not stand for it
        assertThat(streak.toStore(T0, T0 + MINUTE + 2_000)).isEqualTo(NOT_FAILING);
    }

    @Test
    void whileDisabledNothingIsWrittenAndAfterTheEnableTheRunStartsAfresh() {
        streak.failed(T0, "HTTP 503");
        pass(NOT_FAILING, T0 + MINUTE);
        streak.held(true);
        assertThat(streak.toStore(NOT_FAILING, T0 + 2 * MINUTE)).isEqualTo(NO_WRITE);
        streak.failed(T0 + 3 * MINUTE, "HTTP 503");
        streak.held(false);
        assertThat(streak.toStore(NOT_FAILING, T0 + 4 * MINUTE)).isEqualTo(NO_WRITE);
        assertThat(streak.since()).isEqualTo(-1);
    }

    @Test
    void withDisableAfterZeroNothingIsStoredAndALeftOverStartIsCleared() {
        FailureStreak never = new FailureStreak(0);
        never.failed(T0, "HTTP 503");
        assertThat(never.toStore(NOT_FAILING, T0 + HOUR)).isEqualTo(NO_WRITE);
        assertThat(never.toStore(T0, T0 + HOUR)).isEqualTo(NOT_FAILING);
    }
}

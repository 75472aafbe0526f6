package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/**
 * The adaptive pace on a manual clock: the exact pace after given sequences of answers (a
 * rise by a hundredth of max per interval of good answers while the pacer holds work back,
 * a fall to 7/10 once per round trip, the clamps at min and max, Retry-After's hold), and its
 * own bucket's permits.
 */
class AdaptivePaceTest {

    private static final long MS = 1_000_000L;
    private static final AttemptResult OK = AttemptResult.answered(200);
    private static final AttemptResult TOO_MANY = AttemptResult.answered(429);
    private static final AttemptResult UNAVAILABLE = AttemptResult.answered(503);

    private final ManualClock clock = new ManualClock(-7_000 * MS); // any origin works
    /** 1 to 100 per second: steps of 1 per second; Retry-After capped at 5 s. */
    private final AdaptivePace pace = new AdaptivePace(new AdaptiveRate(1_000, 100_000), 5_000, clock);

    private long now() {
        return clock.nanoTime();
    }

    /** One interval on, with work held back, an attempt sent just after the last change answers 200 in 1 ms. */
    private void goodInterval() {
        clock.advanceNanos(100 * MS);
        pace.pressed();
        pace.heard(OK, now() - MS, now());
    }

    @Test
    void startsAtMinAndRisesByAHundredthOfMaxOncePerIntervalOfGoodAnswersWhileTheWorkIsHeldBack() {
        assertThat(pace.paceMilli()).isEqualTo(1_000);
        long born = now();

        clock.advanceNanos(100 * MS);
        pace.heard(OK, born, now()); // nothing held back: the pace was not what limited
        assertThat(pace.paceMilli()).isEqualTo(1_000);

        pace.pressed();
        pace.heard(OK, born, now()); // sent at its birth, 100 ms on: rises
        assertThat(pace.paceMilli()).isEqualTo(2_000);
        long changed = now();

        clock.advanceNanos(150 * MS);
        pace.pressed();
        pace.heard(OK, changed - MS, now()); // sent before the change: says nothing of this pace
        assertThat(pace.paceMilli()).isEqualTo(2_000);
        pace.heard(OK, changed, now()); // sent at the change's instant: not after it
        assertThat(pace.paceMilli()).isEqualTo(2_000);

        pace.heard(OK, changed + 1, changed + 100 * MS - 1); // 1 ns short of an interval
        assertThat(pace.paceMilli()).isEqualTo(2_000);
        pace.heard(OK, changed + 1, changed + 100 * MS);
        assertThat(pace.paceMilli()).isEqualTo(3_000);
        pace.heard(OK, changed + 2, changed + 150 * MS); // one rise per interval
        assertThat(pace.paceMilli()).isEqualTo(3_000);
    }

    @Test
    void risesNoFurtherThanMax() {
        for (int i = 0; i < 99; i++) {
            goodInterval();
        }
        assertThat(pace.paceMilli()).isEqualTo(100_000);
        goodInterval();
        goodInterval();
        assertThat(pace.paceMilli()).isEqualTo(100_000);
        assertThat(pace.perSecond()).isEqualTo(100.0);
    }

    @Test
    void aStepThatWouldPassMaxStopsAtMax() {
        AdaptivePace odd = new AdaptivePace(new AdaptiveRate(1_000, 2_560), 0, clock); // steps of 25 thousandths
        for (int i = 0; i < 70; i++) {
            clock.advanceNanos(100 * MS);
            odd.pressed();
            odd.heard(OK, now() - MS, now());
        }
        assertThat(odd.paceMilli()).isEqualTo(2_560); // 2.55 + 0.025 would pass it
    }

    @Test
    void fallsToSevenTenthsOncePerRoundTripAndNoLowerThanMin() {
        for (int i = 0; i < 49; i++) {
            goodInterval();
        }
        assertThat(pace.paceMilli()).isEqualTo(50_000);

        clock.advanceNanos(10 * MS);
        long sentBeforeTheCut = now() - 5 * MS;
        pace.heard(TOO_MANY, now() - MS, now());
        assertThat(pace.paceMilli()).isEqualTo(35_000);
        long cut = now();
        // a burst of 429s from attempts that were out at the cut: no further cut
        for (int i = 0; i < 20; i++) {
            pace.heard(TOO_MANY, sentBeforeTheCut, now());
            pace.heard(UNAVAILABLE, cut, now());
        }
        assertThat(pace.paceMilli()).isEqualTo(35_000);

        long expected = 35_000;
        while (expected > 1_000) {
            clock.advanceNanos(MS);
            pace.heard(UNAVAILABLE, now() - 1, now()); // each sent after the last cut
            expected = Math.max(1_000, expected * 7 / 10);
            assertThat(pace.paceMilli()).isEqualTo(expected);
        }
        // 35 -> 24.5 -> 17.15 -> 12.005 -> 8.403 -> 5.882 -> 4.117 -> 2.881 -> 2.016 -> 1.411 -> 1 (0.987 clamped)
        assertThat(pace.paceMilli()).isEqualTo(1_000);
        clock.advanceNanos(MS);
        pace.heard(TOO_MANY, now() - 1, now());
        assertThat(pace.paceMilli()).isEqualTo(1_000);
    }

    @Test
    void aCutRestartsTheIntervalOfTheNextRise() {
        goodInterval();
        goodInterval();
        assertThat(pace.paceMilli()).isEqualTo(3_000);
        clock.advanceNanos(50 * MS);
        pace.heard(TOO_MANY, now() - MS, now());
        assertThat(pace.paceMilli()).isEqualTo(2_100);
        clock.advanceNanos(99 * MS);
        pace.pressed();
        pace.heard(OK, now() - MS, now()); // sent after the cut, 99 ms after it
        assertThat(pace.paceMilli()).isEqualTo(2_100);
        clock.advanceNanos(MS);
        pace.heard(OK, now() - MS, now());
        assertThat(pace.paceMilli()).isEqualTo(3_100);
    }

    @Test
    void aRunOfSlowerAnswersIsCongestionCuttingOncePerRoundTrip() {
        for (int i = 0; i < 9; i++) {
            clock.advanceNanos(100 * MS);
            pace.pressed();
            pace.heard(OK, now() - 20 * MS, now()); // 20 ms each: recent and usual latency 20 ms
        }
        assertThat(pace.paceMilli()).isEqualTo(10_000);

        // 70 ms each, sent one after the other: the recent mean (weight 1/8) climbs 26.3, 31.7, 36.5, 40.7,
        // 44.4, 47.6, 50.4, 52.8 ms while the usual one (1/64) climbs 20.8 ... 25.9 ms: at the eighth the
        // recent is past twice the usual and 20 ms above it
        for (int i = 1; i <= 7; i++) {
            clock.advanceNanos(MS);
            pace.heard(OK, now() - 70 * MS, now());
            assertThat(pace.paceMilli()).as("after %d slow answers", i).isEqualTo(10_000);
        }
        clock.advanceNanos(MS);
        long cutAt = now();
        pace.heard(OK, now() - 70 * MS, now());
        assertThat(pace.paceMilli()).isEqualTo(7_000);
        // still slow, but sent before the cut: no second cut; one sent after it: a second
        pace.heard(OK, cutAt - 70 * MS + 1, cutAt + MS);
        assertThat(pace.paceMilli()).isEqualTo(7_000);
        clock.advanceNanos(100 * MS);
        pace.heard(OK, cutAt + 1, now());
        assertThat(pace.paceMilli()).isEqualTo(4_900);
    }

    @Test
    void aSingleSlowAnswerOrAJitterOfMillisecondsIsNotCongestion() {
        goodInterval(); // 1 ms: recent and usual latency 1 ms
        for (int i = 0; i < 60; i++) { // 1 and 15 ms in turn: the recent mean stays within 20 ms of the usual
            clock.advanceNanos(MS);
            pace.heard(OK, now() - (i % 2 == 0 ? 1 : 15) * MS, now());
        }
        assertThat(pace.paceMilli()).isEqualTo(2_000);

        AdaptivePace slower = new AdaptivePace(new AdaptiveRate(1_000, 100_000), 0, clock);
        for (int i = 0; i < 9; i++) {
            clock.advanceNanos(100 * MS);
            slower.pressed();
            slower.heard(OK, now() - 20 * MS, now());
        }
        assertThat(slower.paceMilli()).isEqualTo(10_000);
        clock.advanceNanos(MS);
        slower.heard(OK, now() - 200 * MS, now()); // ten times the usual, once: recent 42.5 ms, usual 22.8 ms
        assertThat(slower.paceMilli()).isEqualTo(10_000);
        clock.advanceNanos(MS);
        slower.heard(OK, now() - 20 * MS, now());
        assertThat(slower.paceMilli()).isEqualTo(10_000);
    }

    @Test
    void answersThatSayNothingOfThePaceChangeNothing() {
        goodInterval();
        goodInterval();
        for (AttemptResult r : new AttemptResult[] {AttemptResult.answered(500), AttemptResult.answered(404),
                AttemptResult.answered(302), AttemptResult.failed(AttemptResult.Failure.TIMEOUT),
                AttemptResult.failed(AttemptResult.Failure.CONNECT), AttemptResult.permanent(),
                AttemptResult.untransformable()}) {
            clock.advanceNanos(200 * MS);
            pace.pressed();
            pace.heard(r, now() - MS, now());
            assertThat(pace.paceMilli()).as(r.toString()).isEqualTo(3_000);
        }
        clock.advanceNanos(100 * MS);
        pace.heard(AttemptResult.acknowledged(), now() - MS, now()); // a broker's ack is a success
        assertThat(pace.paceMilli()).isEqualTo(4_000);
    }

    @Test
    void retryAfterHoldsTheDestinationAndItsRiseForAsLongAsItSaysCappedAtMaxMs() {
        goodInterval();
        goodInterval();
        assertThat(pace.holdNanos(now())).isZero();
        long at = now();
        pace.heard(AttemptResult.answered(429, 2_000), at - MS, at);
        assertThat(pace.paceMilli()).isEqualTo(2_100);
        assertThat(pace.holdNanos(at)).isEqualTo(2_000 * MS);
        assertThat(pace.holdNanos(at + 1_500 * MS)).isEqualTo(500 * MS);

        // good answers during the hold do not raise the pace
        for (int i = 0; i < 19; i++) {
            goodInterval();
        }
        assertThat(now() - at).isEqualTo(1_900 * MS);
        assertThat(pace.paceMilli()).isEqualTo(2_100);
        // a shorter Retry-After (from an attempt out at the cut) does not shorten the hold, nor cut again
        pace.heard(AttemptResult.answered(503, 0), at - 2 * MS, now());
        assertThat(pace.holdNanos(now())).isEqualTo(100 * MS);
        assertThat(pace.paceMilli()).isEqualTo(2_100);
        goodInterval(); // the hold's end: rises again
        assertThat(pace.holdNanos(now())).isZero();
        assertThat(pace.paceMilli()).isEqualTo(3_100);

        // an hour asked for: held for retry.max_ms (5 s)
        clock.advanceNanos(MS);
        pace.heard(AttemptResult.answered(503, 3_600_000), now() - 1, now());
        assertThat(pace.holdNanos(now())).isEqualTo(5_000 * MS);
        // a date in the past (0) or an unreadable header (NONE) holds nothing more
        clock.advanceNanos(5_000 * MS);
        pace.heard(AttemptResult.answered(429, 0), now() - 1, now());
        pace.heard(AttemptResult.answered(429, RetryAfter.NONE), now() - 1, now());
        assertThat(pace.holdNanos(now())).isZero();
    }

    @Test
    void itsBucketStartsAtMostATenthOfASecondsAttemptsAtOnceAndThenOneAPaceInterval() {
        AdaptivePacer pacer = new AdaptivePacer(pace, clock, 1);
        assertThat(pacer.tryTake()).isZero(); // 1 per second: a burst of 1
        assertThat(pacer.tryTakeAtCommit()).isEqualTo(1_000 * MS);
        clock.advanceNanos(1_000 * MS);
        assertThat(pacer.tryTake()).isZero();

        for (int i = 0; i < 49; i++) {
            goodInterval();
        }
        assertThat(pace.paceMilli()).isEqualTo(50_000);
        assertThat(pacer.perSecond()).isEqualTo(50.0);

        clock.advanceNanos(1_000 * MS); // a full bucket: 5 at once (a tenth of a second), then one each 20 ms
        for (int i = 0; i < 5; i++) {
            assertThat(pacer.tryTake()).as("permit " + i).isZero();
        }
        assertThat(pacer.tryTake()).isEqualTo(20 * MS);
        clock.advanceNanos(20 * MS);
        assertThat(pacer.tryTake()).isZero();
        assertThat(pacer.tryTake()).isEqualTo(20 * MS);

        // a fall carries the bucket over: the next permit is one interval of the new pace (35/s) after the last
        pace.heard(TOO_MANY, now() - 1, now());
        assertThat(pace.paceMilli()).isEqualTo(35_000);
        long interval = 1_000_000_000_000L / 35_000;
        long tolerance = interval * 3;
        // the bucket is 100 ms ahead of now: the wait is that plus one interval, less the tolerance (3 intervals)
        assertThat(pacer.tryTake()).isEqualTo(100 * MS + interval - tolerance);
    }

    @Test
    void itsBucketStartsNothingWhileARetryAfterHoldRuns() {
        AdaptivePacer pacer = new AdaptivePacer(pace, clock, 1);
        pace.heard(AttemptResult.answered(429, 3_000), now() - 1, now());
        assertThat(pacer.tryTake()).isEqualTo(3_000 * MS);
        assertThat(pacer.tryTakeAtCommit()).isEqualTo(3_000 * MS);
        clock.advanceNanos(3_000 * MS);
        assertThat(pacer.tryTake()).isZero();
    }

    @Test
    void aFallbackShareChargesThePaceDividedByTheNodes() {
        for (int i = 0; i < 39; i++) {
            goodInterval();
        }
        assertThat(pace.paceMilli()).isEqualTo(40_000);
        AdaptivePacer share = new AdaptivePacer(pace, clock, 4); // 10 per second, a burst of 1
        assertThat(share.perSecond()).isEqualTo(10.0);
        assertThat(share.tryTake()).isZero();
        assertThat(share.tryTake()).isEqualTo(100 * MS);
    }
}

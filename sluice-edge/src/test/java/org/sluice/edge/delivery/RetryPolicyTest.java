package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.sluice.edge.delivery.AttemptResult.answered;
import static org.sluice.edge.delivery.AttemptResult.failed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sluice.edge.delivery.AttemptResult.Failure;
import org.sluice.edge.delivery.RetryPolicy.Verdict;

class RetryPolicyTest {

    private static final RetryPolicy DEFAULTS = RetryPolicy.defaults();
    private static final String APP = "destinations.app";

    @Test
    void theDefaultBackoffDoublesFromOneSecondUpToOneHour() {
        List<Long> tops = new ArrayList<>();
        for (int n = 1; n <= 15; n++) {
            tops.add(DEFAULTS.backoff(n));
        }
        assertThat(tops).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 64_000L, 128_000L,
                256_000L, 512_000L, 1_024_000L, 2_048_000L, 3_600_000L, 3_600_000L, 3_600_000L);
        assertThat(DEFAULTS.backoff(64)).isEqualTo(3_600_000L);
        assertThat(DEFAULTS.backoff(Integer.MAX_VALUE)).isEqualTo(3_600_000L);
    }

    @Test
    void theJitterWindowIsHalfToAllOfTheBackoff() {
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.LOWEST)).isEqualTo(500);
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.HIGHEST)).isEqualTo(1_000);
        assertThat(DEFAULTS.nextDelay(30, FixedRandom.LOWEST)).isEqualTo(1_800_000);
        assertThat(DEFAULTS.nextDelay(30, FixedRandom.HIGHEST)).isEqualTo(3_600_000);
        RetryPolicy odd = RetryPolicy.of(APP, 3, 1_000, 5, 60, List.of());
        assertThat(odd.nextDelay(1, FixedRandom.LOWEST)).isEqualTo(2); // ceil(3 / 2)
        RetryPolicy one = RetryPolicy.of(APP, 1, 1, 5, 60, List.of());
        assertThat(one.nextDelay(1, FixedRandom.LOWEST)).isEqualTo(1);
        assertThat(one.nextDelay(1, FixedRandom.HIGHEST)).isEqualTo(1);
    }

    @Test
    void retryAfterIsAFloorCappedAtMaxMs() {
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.LOWEST, 7_000)).isEqualTo(7_000);
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.HIGHEST, 10)).isEqualTo(1_000);
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.LOWEST, Long.MAX_VALUE)).isEqualTo(3_600_000);
        assertThat(DEFAULTS.nextDelay(1, FixedRandom.LOWEST, RetryAfter.NONE)).isEqualTo(500);
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204, 299})
    void twoHundredsAreDelivered(int status) {
        assertThat(DEFAULTS.classify(status)).isEqualTo(Verdict.DELIVERED);
        assertThat(DEFAULTS.decide(1, answered(status), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Delivered());
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 405, 410, 413, 415, 422})
    void theDefaultPermanentStatusesAreDeadAtOnce(int status) {
        assertThat(DEFAULTS.classify(status)).isEqualTo(Verdict.PERMANENT);
        assertThat(DEFAULTS.decide(1, answered(status), 0, FixedRandom.LOWEST))
                .isEqualTo(new Decision.Dead(DeadReason.PERMANENT_STATUS));
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 199, 300, 301, 302, 304, 307, 308, 402, 408, 409, 429, 451, 499, 500, 502, 503, 504, 599,
            600, 999, 0, -1})
    void everyOtherStatusIsRetried(int status) {
        assertThat(DEFAULTS.classify(status)).isEqualTo(Verdict.RETRY);
        assertThat(DEFAULTS.decide(1, answered(status), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(500));
    }

    @ParameterizedTest
    @EnumSource(Failure.class)
    void everyFailureWithoutAnAnswerIsRetried(Failure failure) {
        assertThat(DEFAULTS.classify(failed(failure))).isEqualTo(Verdict.RETRY);
        assertThat(DEFAULTS.decide(3, failed(failure), 0, FixedRandom.HIGHEST)).isEqualTo(new Decision.Retry(4_000));
    }

    @Test
    void aBrokersAcknowledgementIsDeliveredOnAnyAttempt() {
        assertThat(DEFAULTS.classify(AttemptResult.acknowledged())).isEqualTo(Verdict.DELIVERED);
        assertThat(DEFAULTS.decide(1, AttemptResult.acknowledged(), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Delivered());
        assertThat(DEFAULTS.decide(20, AttemptResult.acknowledged(), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Delivered());
    }

    @Test
    void aBrokersPermanentRefusalIsDeadAtOnceAsPermanentError() {
        assertThat(DEFAULTS.classify(AttemptResult.permanent())).isEqualTo(Verdict.PERMANENT);
        assertThat(DEFAULTS.decide(1, AttemptResult.permanent(), 0, FixedRandom.LOWEST))
                .isEqualTo(new Decision.Dead(DeadReason.PERMANENT_ERROR));
    }

    @Test
    void configuredPermanentStatusesReplaceTheDefaults() {
        RetryPolicy p = RetryPolicy.of(APP, 1_000, 60_000, 5, 3_600, List.of(301, 500));
        assertThat(p.classify(301)).isEqualTo(Verdict.PERMANENT);
        assertThat(p.classify(500)).isEqualTo(Verdict.PERMANENT);
        assertThat(p.classify(404)).isEqualTo(Verdict.RETRY);
    }

    @Test
    void retryAfterCountsOnlyOn429And503() {
        assertThat(DEFAULTS.decide(1, answered(429, 20_000), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(20_000));
        assertThat(DEFAULTS.decide(1, answered(503, 20_000), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(20_000));
        assertThat(DEFAULTS.decide(1, answered(500, 20_000), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(500));
        assertThat(DEFAULTS.decide(1, answered(502, 20_000), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(500));
    }

    @Test
    void theMaxAttemptsThFailureIsDead() {
        assertThat(DEFAULTS.decide(19, answered(500), 0, FixedRandom.LOWEST)).isInstanceOf(Decision.Retry.class);
        assertThat(DEFAULTS.decide(20, answered(500), 0, FixedRandom.LOWEST))
                .isEqualTo(new Decision.Dead(DeadReason.MAX_ATTEMPTS));
        // a permanent status is still named as such on the last attempt
        assertThat(DEFAULTS.decide(20, answered(404), 0, FixedRandom.LOWEST))
                .isEqualTo(new Decision.Dead(DeadReason.PERMANENT_STATUS));
        assertThat(DEFAULTS.decide(20, answered(200), 0, FixedRandom.LOWEST)).isEqualTo(new Decision.Delivered());
    }

    @Test
    void aRetryThatWouldFallAtOrPastMaxAgeIsDeadNow() {
        RetryPolicy p = RetryPolicy.of(APP, 1_000, 1_000, 100, 60, List.of());
        // delay is 500 (lowest draw); max age 60 000 ms
        assertThat(p.decide(1, answered(500), 59_499, FixedRandom.LOWEST)).isEqualTo(new Decision.Retry(500));
        assertThat(p.decide(1, answered(500), 59_500, FixedRandom.LOWEST)).isEqualTo(new Decision.Dead(DeadReason.MAX_AGE));
        assertThat(p.decide(1, answered(500), 60_000, FixedRandom.LOWEST)).isEqualTo(new Decision.Dead(DeadReason.MAX_AGE));
        assertThat(p.decide(1, answered(500), Long.MAX_VALUE, FixedRandom.LOWEST))
                .isEqualTo(new Decision.Dead(DeadReason.MAX_AGE));
        assertThat(p.decide(1, answered(200), 60_000, FixedRandom.LOWEST)).isEqualTo(new Decision.Delivered());
    }

    @Test
    void withTheDefaultsAnAlwaysFailingDeliveryDiesOfMaxAttemptsAfterAFixedSchedule() {
        for (FixedRandom random : List.of(FixedRandom.LOWEST, FixedRandom.HIGHEST)) {
            long age = 0;
            int attempt = 1;
            Decision d;
            while ((d = DEFAULTS.decide(attempt, answered(500), age, random)) instanceof Decision.Retry r) {
                age += r.delayMillis();
                attempt++;
            }
            assertThat(d).isEqualTo(new Decision.Dead(DeadReason.MAX_ATTEMPTS));
            assertThat(attempt).isEqualTo(20);
            // tops: 1 + 2 + ... + 2048 s (12 waits) + 7 waits of 3600 s; the lowest draws are half of each
            assertThat(age).isEqualTo(random == FixedRandom.HIGHEST ? 29_295_000L : 14_647_500L);
        }
    }

    @Test
    void aShortMaxAgeEndsTheScheduleFirst() {
        RetryPolicy p = RetryPolicy.of(APP, 1_000, 3_600_000, 20, 600, List.of());
        long age = 0;
        int attempt = 1;
        Decision d;
        while ((d = p.decide(attempt, failed(Failure.TIMEOUT), age, FixedRandom.HIGHEST)) instanceof Decision.Retry r) {
            age += r.delayMillis();
            attempt++;
        }
        assertThat(d).isEqualTo(new Decision.Dead(DeadReason.MAX_AGE));
        // waits of 1, 2, ... 256 s sum to 511 s; the next (512 s) would end past 600 s
        assertThat(attempt).isEqualTo(10);
        assertThat(age).isEqualTo(511_000L);
    }

    @Test
    void attemptsMayStartOnlyBeforeMaxAge() {
        assertThat(DEFAULTS.maxAgeMillis()).isEqualTo(259_200_000L);
        assertThat(DEFAULTS.expired(259_199_999L)).isFalse();
        assertThat(DEFAULTS.expired(259_200_000L)).isTrue();
    }

    @Test
    void attemptsCountFromOne() {
        assertThatThrownBy(() -> DEFAULTS.backoff(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DEFAULTS.decide(0, answered(500), 0, FixedRandom.LOWEST))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        assertThat(DEFAULTS.initialMs()).isEqualTo(1_000);
        assertThat(DEFAULTS.maxMs()).isEqualTo(3_600_000);
        assertThat(DEFAULTS.maxAttempts()).isEqualTo(20);
        assertThat(RetryPolicy.DEFAULT_PERMANENT_STATUSES).containsExactly(400, 401, 403, 404, 405, 410, 413, 415, 422);
    }

    @Test
    void badValuesAreAllReportedWithTheirKeyPaths() {
        assertThatThrownBy(() -> RetryPolicy.of(APP, 0, -5, 0, 0, Arrays.asList(404, 200, null, 600)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.errors()).containsExactly(
                        "destinations.app.retry.initial_ms must be an integer of at least 1, got 0",
                        "destinations.app.retry.max_ms must be an integer of at least 1, got -5",
                        "destinations.app.retry.max_attempts must be an integer from 1 to 2147483647, got 0",
                        "destinations.app.retry.max_age_seconds must be an integer from 1 to 9223372036854775, got 0",
                        "destinations.app.retry.permanent_statuses[1] must be a status from 300 to 599 (2xx is delivered), got 200",
                        "destinations.app.retry.permanent_statuses[2] must be a status from 300 to 599 (2xx is delivered), got null",
                        "destinations.app.retry.permanent_statuses[3] must be a status from 300 to 599 (2xx is delivered), got 600"));
    }

    @Test
    void maxMsBelowInitialMsIsAConfigError() {
        assertThatThrownBy(() -> RetryPolicy.of(APP, 5_000, 1_000, 20, 60, List.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage("destinations.app.retry.max_ms must be at least destinations.app.retry.initial_ms (5000), got 1000");
        assertThatThrownBy(() -> RetryPolicy.of(APP, 1, 1, 3_000_000_000L, Long.MAX_VALUE, List.of()))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.errors()).hasSize(2));
        assertThatThrownBy(() -> RetryPolicy.of(APP, 1, 1, 1, 1, null))
                .isInstanceOf(SettingsException.class)
                .hasMessage("destinations.app.retry.permanent_statuses must be a list of statuses, got nothing");
    }
}

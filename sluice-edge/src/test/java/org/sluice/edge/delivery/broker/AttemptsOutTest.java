package org.sluice.edge.delivery.broker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.broker.AttemptsOut.Attempt;

/** The table of a broker transport's attempts out: each attempt completes once, whoever comes first. */
class AttemptsOutTest {

    private static final AttemptOutcome TIMED_OUT = new AttemptOutcome(AttemptResult.failed(AttemptResult.Failure.TIMEOUT), "late");
    private static final AttemptOutcome ACKED = new AttemptOutcome(AttemptResult.acknowledged(), null);
    private static final AttemptOutcome CLOSED = new AttemptOutcome(AttemptResult.failed(AttemptResult.Failure.CONNECT), "closed");

    @Test
    void theSweepRunsEveryTenthOfTheTimeoutWithinItsBounds() {
        assertThat(AttemptsOut.sweepMillis(5)).isEqualTo(1);
        assertThat(AttemptsOut.sweepMillis(300)).isEqualTo(30);
        assertThat(AttemptsOut.sweepMillis(30_000)).isEqualTo(AttemptsOut.MAX_SWEEP_MS);
    }

    @Test
    void attemptsAreNumberedFromOneAndTakenOutByNumberOnce() {
        AttemptsOut<String> out = new AttemptsOut<>(60_000, TIMED_OUT);
        Attempt<String> a = out.open("a.subject");
        Attempt<String> b = out.open("b.subject");
        assertThat(a.number()).isEqualTo(1);
        assertThat(b.number()).isEqualTo(2);
        assertThat(out.take(1)).isSameAs(a);
        assertThat(out.take(1)).isNull();
        assertThat(out.take(3)).isNull();
        assertThat(a.payload()).isEqualTo("a.subject");
    }

    @Test
    void theFirstCompletionWinsAndTakesTheAttemptOut() {
        AttemptsOut<String> out = new AttemptsOut<>(60_000, TIMED_OUT);
        Attempt<String> a = out.open("s");
        a.complete(ACKED);
        a.complete(CLOSED);
        assertThat(a.future()).isCompletedWithValue(ACKED);
        assertThat(out.take(a.number())).isNull();
    }

    @Test
    void theSweepTimesOutOnlyAttemptsPastTheirDeadline() {
        AttemptsOut<String> late = new AttemptsOut<>(1, TIMED_OUT);
        Attempt<String> a = late.open("s");
        // the deadline is 1 ms after open: wait for the clock to pass it, not for the sweep
        long deadline = System.nanoTime() + 1_000_000;
        while (System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        late.sweep();
        assertThat(a.future()).isCompletedWithValue(TIMED_OUT);

        AttemptsOut<String> patient = new AttemptsOut<>(3_600_000, TIMED_OUT);
        Attempt<String> b = patient.open("s");
        patient.sweep();
        assertThat(b.isDone()).isFalse();
        patient.completeAll(CLOSED);
        assertThat(b.future()).isCompletedWithValue(CLOSED);
        assertThat(patient.take(b.number())).isNull();
    }
}

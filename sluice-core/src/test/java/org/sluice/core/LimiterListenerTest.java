package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What both limiters tell their listener, call by call, on a manual clock. */
class LimiterListenerTest {

    private static final long MS = 1_000_000L;

    /** Every event as a line, in order. */
    static final class Recorder implements LimiterListener {
        final List<String> events = new ArrayList<>();

        @Override
        public void admitted(long permits) {
            events.add("admitted " + permits);
        }

        @Override
        public void refused(long permits, long waitNanos) {
            events.add("refused " + permits + " wait " + waitNanos / MS + " ms");
        }

        @Override
        public void waited(long nanos) {
            events.add("waited " + nanos / MS + " ms");
        }

        @Override
        public void swept(int rows) {
            events.add("swept " + rows);
        }
    }

    private final TestClock clock = new TestClock(5L);
    private final Recorder recorder = new Recorder();

    @Test
    void theSingleLimiterReportsEachAttemptAndEachWait() throws InterruptedException {
        Limiter limiter = Limiter.builder().bandwidth(Limit.of(10, 2)).clock(clock).listener(recorder)
                .sleeper(clock::advanceNanos).build();
        assertThat(limiter.tryAcquire(2)).isZero();
        assertThat(limiter.tryAcquire()).isPositive();
        assertThat(limiter.acquire(1, Duration.ofSeconds(1))).isTrue();
        assertThat(limiter.reserve(2)).isEqualTo(200 * MS);
        assertThat(recorder.events).containsExactly(
                "admitted 2",
                "refused 1 wait 100 ms",
                "refused 1 wait 100 ms", "waited 100 ms", "admitted 1",
                "admitted 2", "waited 200 ms");
    }

    @Test
    void theKeyedLimiterReportsAttemptsAndSweepsButNoKey() {
        KeyedLimiter<String> limiter = KeyedLimiter.<String>builder().bandwidth(Limit.of(10, 1)).clock(clock)
                .sweepInterval(Duration.ZERO).listener(recorder).build();
        assertThat(limiter.tryAcquire("a")).isZero();
        assertThat(limiter.tryAcquire(7L, 1)).isZero();
        assertThat(limiter.tryAcquire("a")).isPositive();
        clock.advanceMillis(100);
        for (int s = 0; s < KeyedTable.SHARDS; s++) {
            limiter.sweepTick();
        }
        assertThat(recorder.events).containsExactlyInAnyOrder(
                "admitted 1", "admitted 1", "refused 1 wait 100 ms", "swept 1", "swept 1");
        assertThat(recorder.events.subList(0, 3)).containsExactly("admitted 1", "admitted 1", "refused 1 wait 100 ms");
    }
}

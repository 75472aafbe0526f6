package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link Clock#ticking(Duration)}: properties of the readings, no timing assertions. */
class TickingClockTest {

    @Test
    void readingsNeverDecreaseOnAnyThread() throws InterruptedException {
        Clock clock = Clock.ticking(Duration.ofMillis(1));
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<String> broken = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long last = clock.nanoTime();
                for (int i = 0; i < 2_000_000; i++) {
                    long r = clock.nanoTime();
                    if (r - last < 0) {
                        broken.compareAndSet(null, r + " read after " + last);
                    }
                    last = r;
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(broken.get()).isNull();
    }

    @Test
    void aReadingIsNeverAheadOfTheSystemClock() {
        Clock clock = Clock.ticking(Duration.ofMillis(1));
        for (int i = 0; i < 100_000; i++) {
            long r = clock.nanoTime();
            long system = System.nanoTime();
            assertThat(system - r).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void advancesWithoutBeingCalled() throws InterruptedException {
        Clock clock = Clock.ticking(Duration.ofMillis(1));
        long first = clock.nanoTime();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (clock.nanoTime() == first && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(clock.nanoTime()).isGreaterThan(first);
    }

    @Test
    void everyTickingClockSharesOneDaemonThreadRunningAtTheFinestTick() {
        Clock coarse = Clock.ticking(Duration.ofMillis(500));
        Clock fine = Clock.ticking(Duration.ofMillis(2));
        List<Thread> publishers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(TickingClock.THREAD_NAME))
                .toList();
        assertThat(publishers).hasSize(1);
        assertThat(publishers.get(0).isDaemon()).isTrue();
        assertThat(TickingClock.periodNanos()).isLessThanOrEqualTo(Duration.ofMillis(2).toNanos());
        assertThat(coarse.nanoTime() - fine.nanoTime()).isLessThanOrEqualTo(0); // the same field, read in order
        assertThat(coarse).hasToString("Clock.ticking(PT0.5S)");
    }

    /** An interrupt left set would make every park return at once: the publisher would spin a core. */
    @Test
    void anInterruptedPublisherClearsTheInterruptAndKeepsPublishing() throws InterruptedException {
        Clock clock = Clock.ticking(Duration.ofMillis(1));
        Thread publisher = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(TickingClock.THREAD_NAME)).findFirst().orElseThrow();
        publisher.interrupt();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (publisher.isInterrupted() && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(publisher.isInterrupted()).isFalse();
        long before = clock.nanoTime();
        while (clock.nanoTime() == before && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(clock.nanoTime()).isGreaterThan(before);
    }

    @Test
    void theSystemClockStaysTheDefault() {
        Clock.ticking(Duration.ofMillis(1));
        assertThat(Clock.system()).isSameAs(SystemClock.INSTANCE);
    }

    @Test
    void aTickOutsideOneHundredMicrosecondsToOneSecondIsRefusedWithItsValue() {
        assertThatThrownBy(() -> Clock.ticking(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tick must be a duration from 100us to 1s, got null");
        assertThatThrownBy(() -> Clock.ticking(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tick must be a duration from 100us to 1s, got PT0S");
        assertThatThrownBy(() -> Clock.ticking(Duration.ofNanos(99_999)))
                .hasMessage("tick must be a duration from 100us to 1s, got PT0.000099999S");
        assertThatThrownBy(() -> Clock.ticking(Duration.ofMillis(-1)))
                .hasMessage("tick must be a duration from 100us to 1s, got PT-0.001S");
        assertThatThrownBy(() -> Clock.ticking(Duration.ofSeconds(1).plusNanos(1)))
                .hasMessage("tick must be a duration from 100us to 1s, got PT1.000000001S");
        assertThatThrownBy(() -> Clock.ticking(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessageStartingWith("tick must be a duration from 100us to 1s, got PT");
        assertThat(Clock.ticking(Duration.ofNanos(100_000))).isNotNull();
        assertThat(Clock.ticking(Duration.ofSeconds(1))).isNotNull();
    }
}

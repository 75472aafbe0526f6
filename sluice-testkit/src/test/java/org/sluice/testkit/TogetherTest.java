package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TogetherTest {

    @Test
    void runWaitsForEveryThreadOfTheCrowd() throws InterruptedException {
        AtomicInteger ran = new AtomicInteger();
        Together.run(4, thread -> ran.incrementAndGet());
        assertThat(ran).hasValue(4);
    }

    @Test
    void aStartedCrowdRunsWhileTheCallerWorksAndJoinWaitsForIt() throws InterruptedException {
        CountDownLatch callerLooked = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        Together.Crowd crowd = Together.start(3, thread -> {
            callerLooked.await();
            ran.incrementAndGet();
        });
        assertThat(crowd.awaitEnd(0, TimeUnit.MILLISECONDS)).as("held at the latch: still running").isFalse();
        callerLooked.countDown();
        crowd.join();
        assertThat(ran).hasValue(3);
        assertThat(crowd.awaitEnd(0, TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void joinReportsWhatAThreadThrew() throws InterruptedException {
        Together.Crowd crowd = Together.start(2, thread -> {
            if (thread == 1) {
                throw new IllegalStateException("thread 1 broke");
            }
        });
        assertThatThrownBy(crowd::join).isInstanceOf(AssertionError.class).hasMessageContaining("thread 1 broke");
    }
}

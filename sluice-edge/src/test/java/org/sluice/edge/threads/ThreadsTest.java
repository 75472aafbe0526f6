package org.sluice.edge.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ThreadsTest {

    @Test
    void daemonThreadsCarryTheirName() throws Exception {
        Thread t = Threads.daemon(() -> { }, "sluice-test");
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getName()).isEqualTo("sluice-test");

        ScheduledExecutorService scheduler = Threads.daemonScheduler("sluice-test-scheduler");
        try {
            Thread ran = scheduler.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertThat(ran.isDaemon()).isTrue();
            assertThat(ran.getName()).isEqualTo("sluice-test-scheduler");
        } finally {
            assertThat(Threads.stopNow(scheduler, 30)).isTrue();
        }
    }

    @Test
    void poolFactoriesMakeDaemonThreadsNamedAsBefore() {
        ThreadFactory numbered = Threads.numbered("sluice-replay-", 0);
        Thread first = numbered.newThread(() -> { });
        Thread second = numbered.newThread(() -> { });
        assertThat(first.getName()).isEqualTo("sluice-replay-0");
        assertThat(second.getName()).isEqualTo("sluice-replay-1");
        assertThat(first.isDaemon() && second.isDaemon()).isTrue();

        Thread fromOne = Threads.numbered("sluice-delivery-", 1).newThread(() -> { });
        assertThat(fromOne.getName()).isEqualTo("sluice-delivery-1");

        ThreadFactory named = Threads.named("sluice-receive");
        Thread a = named.newThread(() -> { });
        Thread b = named.newThread(() -> { });
        assertThat(a.getName()).isEqualTo("sluice-receive");
        assertThat(b.getName()).isEqualTo("sluice-receive");
        assertThat(a.isDaemon() && b.isDaemon()).isTrue();
    }

    @Test
    void stopNowInterruptsTheTaskInProgress() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        executor.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(Threads.stopNow(executor, 30)).isTrue();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(interrupted).isTrue();
    }

    @Test
    void stopLetsTheQueuedTasksRun() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            executor.execute(ran::countDown);
        }

        assertThat(Threads.stop(executor, 30)).isTrue();
        assertThat(ran.getCount()).isZero();
    }

    @Test
    void aWaitThatRunsOutAnswersFalse() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(() -> {
            started.countDown();
            awaitIgnoringInterrupts(release);
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(Threads.stopNow(executor, 0)).isFalse(); // the task ignores the interrupt
        } finally {
            release.countDown();
            assertThat(Threads.awaitStopped(executor, 30)).isTrue();
        }
    }

    @Test
    void anInterruptedCallerStopsWaitingAndKeepsItsInterrupt() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch release = new CountDownLatch(1);
        executor.execute(() -> awaitIgnoringInterrupts(release));
        executor.shutdown();
        try {
            Thread.currentThread().interrupt();
            assertThat(Threads.awaitStopped(executor, 3600)).isTrue();
            assertThat(Thread.interrupted()).isTrue(); // kept, and cleared here for the next test
        } finally {
            release.countDown();
            assertThat(Threads.awaitStopped(executor, 30)).isTrue();
        }
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

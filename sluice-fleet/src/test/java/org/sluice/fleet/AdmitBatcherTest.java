package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.RedisServer;
import org.sluice.testkit.Together;

/**
 * The batcher alone on a real Redis: the queue bound holds while the store is paused
 * (SIGSTOP), and every queued request is sent once it resumes. No timing: the budget
 * here is far longer than the test.
 */
class AdmitBatcherTest {

    private static AdmitRequest claim(int i) {
        return new AdmitRequest("sluice:{b}:h", "sluice:{b}:b", "sluice:{b}:d:src:" + i, 1, 1, 0, 0, false, "tok" + i);
    }

    private static List<Object> reply(AdmitRequest r) throws Exception {
        return r.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aFullQueueRefusesAtOnceAndEverythingQueuedIsSentWhenTheStoreResumes() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RedisLink link = new RedisLink(FleetSettings.defaults().withRedis(redis.uri()).withTimeoutMs(60_000))) {
            assertThat(link.ensureConnected()).isTrue();
            AdmitBatcher batcher = new AdmitBatcher(link, 30_000, 60_000, 8, 4, 1);
            redis.pause();
            AdmitRequest first = claim(0);
            batcher.submit(first); // takes the only slot and waits in the paused store
            assertThat(batcher.inFlight()).isEqualTo(1);
            List<AdmitRequest> queued = new ArrayList<>();
            for (int i = 1; i <= 8; i++) {
                AdmitRequest r = claim(i);
                batcher.submit(r);
                queued.add(r);
            }
            assertThat(batcher.queued()).isEqualTo(8);
            List<AdmitRequest> refused = new ArrayList<>();
            for (int i = 9; i < 14; i++) {
                AdmitRequest r = claim(i);
                batcher.submit(r);
                refused.add(r);
            }
            for (AdmitRequest r : refused) {
                assertThat(r.isCompletedExceptionally()).as("refused at once").isTrue();
                assertThatCause(r).isSameAs(AdmitBatcher.QUEUE_FULL);
            }
            assertThat(batcher.rejected()).isEqualTo(5);
            assertThat(batcher.queued()).isEqualTo(8);
            assertThat(queued).noneMatch(CompletableFuture::isDone);

            redis.resume();
            assertThat(reply(first)).containsExactly(1L);
            for (AdmitRequest r : queued) {
                assertThat(reply(r)).containsExactly(1L);
            }
            // one call for the first, then batches of at most 4: 4 + 4
            assertThat(batcher.batches()).isEqualTo(3);
            assertThat(batcher.sent()).isEqualTo(9);
            assertThat(batcher.queued()).isZero();
            for (int i = 0; i <= 8; i++) {
                assertThat(redis.call("GET", "sluice:{b}:d:src:" + i)).isEqualTo("p:tok" + i);
            }
            for (int i = 9; i < 14; i++) {
                assertThat(redis.call("EXISTS", "sluice:{b}:d:src:" + i)).isEqualTo(0L);
            }
        }
    }

    @Test
    void concurrentProducersNeverQueueMoreThanTheBound() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RedisLink link = new RedisLink(FleetSettings.defaults().withRedis(redis.uri()).withTimeoutMs(60_000))) {
            assertThat(link.ensureConnected()).isTrue();
            int bound = 100;
            int batchMax = 16;
            int inFlight = 2;
            AdmitBatcher batcher = new AdmitBatcher(link, 30_000, 60_000, bound, batchMax, inFlight);
            redis.pause();
            int threads = 8;
            int each = 200;
            java.util.Queue<AdmitRequest> all = new java.util.concurrent.ConcurrentLinkedQueue<>();
            AtomicInteger maxSeen = new AtomicInteger();
            Together.run(threads, t -> {
                for (int i = 0; i < each; i++) {
                    AdmitRequest r = claim(t * each + i);
                    batcher.submit(r);
                    all.add(r);
                    maxSeen.accumulateAndGet(batcher.queueLength(), Math::max);
                }
            });
            assertThat(maxSeen.get()).isLessThanOrEqualTo(bound);
            long refused = all.stream().filter(CompletableFuture::isCompletedExceptionally).count();
            long waiting = all.stream().filter(r -> !r.isDone()).count();
            assertThat(refused).isEqualTo(batcher.rejected());
            // at most the queue plus the batches in flight wait; everything else was refused
            assertThat(waiting).isLessThanOrEqualTo(bound + (long) batchMax * inFlight);
            assertThat(refused + waiting).isEqualTo((long) threads * each);

            redis.resume();
            for (AdmitRequest r : all) {
                if (!r.isCompletedExceptionally()) {
                    assertThat(reply(r)).containsExactly(1L);
                }
            }
            assertThat(batcher.sent()).isEqualTo(waiting);
            assertThat(batcher.inFlight()).isZero();
        }
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertThatCause(AdmitRequest r) {
        try {
            r.get();
            throw new AssertionError("expected a failed request");
        } catch (ExecutionException e) {
            return assertThat(e.getCause());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}

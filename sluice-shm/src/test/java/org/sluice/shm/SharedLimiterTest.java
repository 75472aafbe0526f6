package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimit;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;
import org.sluice.core.Probe;
import org.sluice.testkit.ManualClock;
import org.sluice.testkit.ManualScheduler;

/**
 * The shared-memory {@link KeyedLimit} against the in-memory one: the same calls through
 * the one interface get the same answers (admissions, waits, probes) for limits in whole
 * microseconds, on a manual clock and a real mapped arena.
 */
class SharedLimiterTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private Path file;

    private SharedArena arena() throws Exception {
        file = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        return SharedArena.create(file, 1 << 20);
    }

    @AfterEach
    void removeArena() throws Exception {
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aKeyIsHeldToItsLimitAndTheProbeSaysWhereItStands() throws Exception {
        try (SharedArena arena = arena()) {
            SharedLimiter limiter = arena.limiter("tenants", 1024, Limit.of(10, 3), now::get);
            Probe probe = new Probe();
            assertThat(limiter.tryAcquire("a", 2, probe)).isTrue();
            assertThat(probe.remaining()).isEqualTo(1L);
            assertThat(probe.resetNanos()).isEqualTo(200 * MS);
            assertThat(limiter.tryAcquire("a", 2, probe)).isFalse();
            assertThat(probe.waitNanos()).isEqualTo(100 * MS);
            assertThat(probe.remaining()).isEqualTo(1L);
            assertThat(limiter.tryAcquire("a".getBytes(java.nio.charset.StandardCharsets.UTF_8), 1))
                    .as("the same key as bytes").isZero();
            assertThat(limiter.tryAcquire("a", 1)).isEqualTo(100 * MS);
            limiter.reset("a");
            assertThat(limiter.tryAcquire("a", 3)).isZero();
            assertThat(limiter.bandwidths()).containsExactly(Limit.of(10, 3));
            assertThatThrownBy(() -> limiter.tryAcquire("a", 4))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bandwidths (3), got 4");
        }
    }

    @Test
    void twoLimitersOnOneTableShareTheKeysBuckets() throws Exception {
        try (SharedArena arena = arena()) {
            KeyedLimit<String> one = arena.limiter("tenants", 1024, Limit.of(10, 3), now::get);
            KeyedLimit<String> other = arena.limiter("tenants", 1024, Limit.of(10, 3), now::get);
            assertThat(one.tryAcquire("a", 3)).isZero();
            assertThat(other.tryAcquire("a", 1)).isEqualTo(100 * MS);
        }
    }

    @Test
    void theWaitingCallsAskAgainAfterEachWaitAndTakeNothingBeforeTheyAreAdmitted() throws Exception {
        ManualClock clock = new ManualClock(1_000_000_000L);
        ManualScheduler scheduler = new ManualScheduler(clock);
        try (SharedArena arena = arena()) {
            SharedLimiter limiter = arena.limiter("waits", 1024, Limit.of(10, 2), clock, clock::advanceNanos);
            assertThat(limiter.tryAcquire("a", 2)).isZero();
            assertThat(limiter.acquire("a", 1, Duration.ofMillis(100))).as("the wait fits exactly").isTrue();
            assertThat(clock.nanoTime()).isEqualTo(1_100_000_000L);
            assertThat(limiter.acquire("a", 1, Duration.ofMillis(100).minusNanos(1))).as("a nanosecond short").isFalse();
            assertThat(clock.nanoTime()).as("refused without waiting").isEqualTo(1_100_000_000L);

            CompletableFuture<Boolean> cancelled = limiter.acquireAsync("a", 1, Duration.ofSeconds(1), scheduler)
                    .toCompletableFuture();
            assertThat(scheduler.queued()).as("asks again once the wait has passed").isEqualTo(1);
            cancelled.cancel(false);
            scheduler.runUntilIdle();
            assertThat(limiter.tryAcquire("a", 1)).as("a cancelled stage took nothing").isZero();

            CompletableFuture<Boolean> stage = limiter.acquireAsync("a", 1, Duration.ofSeconds(1), scheduler)
                    .toCompletableFuture();
            assertThat(stage).isNotDone();
            assertThat(limiter.tryAcquire("a", 1)).as("nothing is reserved while it waits").isEqualTo(100 * MS);
            scheduler.runUntilIdle();
            assertThat(stage).isCompletedWithValue(true);
            assertThat(limiter.tryAcquire("a", 1)).isEqualTo(100 * MS);
            assertThatThrownBy(() -> limiter.acquireAsync("a", 3, Duration.ZERO, scheduler))
                    .as("a cost no bucket can hold throws on the caller's thread").isInstanceOf(IllegalArgumentException.class);
        }
    }

    record Call(int key, long gapMicros, int permits) {
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(0, 2_000_000).edgeCases(c -> c.add(0L)),
                Arbitraries.integers().between(1, 5)).as(Call::new).list().ofMaxSize(150);
    }

    /** One contract, two scopes: per key, the shared limiter answers as the in-memory one does. */
    @Property(tries = 60)
    void theSharedLimiterAnswersLikeTheInMemoryOne(@ForAll("calls") List<Call> calls) throws Exception {
        Limit limit = Limit.of(4, 5); // 250 ms a permit, bursts of 5: whole microseconds
        AtomicLong clock = new AtomicLong(7_000_000_000L);
        Path f = SharedArena.defaultFile("sluice-test-" + UUID.randomUUID());
        try (SharedArena arena = SharedArena.create(f, 1 << 20)) {
            KeyedLimit<String> shared = arena.limiter("t", 1024, limit, clock::get);
            KeyedLimit<String> memory = KeyedLimiter.<String>builder().bandwidth(limit).clock(clock::get)
                    .sweepInterval(Duration.ZERO).build();
            Probe got = new Probe();
            Probe want = new Probe();
            for (Call call : calls) {
                clock.addAndGet(call.gapMicros() * 1000);
                String key = "k" + call.key();
                assertThat(shared.tryAcquire(key, call.permits(), got)).isEqualTo(memory.tryAcquire(key, call.permits(), want));
                assertThat(got.waitNanos()).isEqualTo(want.waitNanos());
                assertThat(got.remaining()).isEqualTo(want.remaining());
                assertThat(got.resetNanos()).isEqualTo(want.resetNanos());
            }
        } finally {
            Files.deleteIfExists(f);
        }
    }
}

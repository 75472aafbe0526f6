package org.sluice.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.Probe;

/**
 * The one model every {@link KeyedLimit} is held to, whatever its scope (in memory, shared
 * memory, Redis): each module's property test builds its own limiter on a {@link
 * ManualClock}, with a sleeper that moves the clock, and hands it to {@link #check} with a
 * random list of {@link Step}s from {@link #steps}. For every sequence:
 *
 * <ul>
 *   <li><b>the bound</b>: per key and per bandwidth, the permits admitted between two
 *       readings {@code d} apart are at most {@code burst + rate x d} (checked over every
 *       pair of admissions, each counted at the reading it became the caller's);
 *   <li><b>a refusal changes nothing</b>: asked again at the same reading, a refused call
 *       is refused with the same wait, and its probe reads the same;
 *   <li><b>the probe agrees with the next call</b>: a refusal's wait is exact (one
 *       microsecond sooner is refused, the wait itself admitted), and an admission's
 *       {@code remaining} permits are exactly what the next call can take;
 *   <li><b>the waits</b>: {@code acquire} and {@code acquireAsync} admit exactly when the
 *       first wait fits in the timeout, and never wait longer than it.
 * </ul>
 *
 * Times stay on whole microseconds (the shared-memory and Redis scopes keep microseconds),
 * so give it bandwidths whose interval is a whole number of microseconds.
 */
public final class KeyedLimitModel {

    private static final long US = 1_000L;

    /** What a step asks. */
    public enum Kind { TRY, PROBE, ACQUIRE, ASYNC }

    /** Move the clock by {@code gapMicros}, then ask {@code kind} of key {@code "k" + key}. */
    public record Step(Kind kind, int key, long gapMicros, int permits, long timeoutMicros) {
    }

    private final KeyedLimit<String> limit;
    private final ManualClock clock;
    private final ManualScheduler scheduler;
    private final long maxPermits;
    private final Map<String, List<long[]>> admitted = new HashMap<>();
    private final Probe probe = new Probe();
    private final Probe again = new Probe();
    private int step;

    private KeyedLimitModel(KeyedLimit<String> limit, ManualClock clock) {
        this.limit = limit;
        this.clock = clock;
        this.scheduler = new ManualScheduler(clock);
        this.maxPermits = limit.bandwidths().stream().mapToLong(Limit::burst).min().orElseThrow();
    }

    /**
     * Steps on up to three keys, gaps up to 1.5 s, costs from 1 to {@code maxPermits},
     * timeouts up to 3 s.
     */
    public static Arbitrary<List<Step>> steps(int maxPermits, int maxSteps) {
        return Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 1_500_000).edgeCases(c -> c.add(0L)),
                Arbitraries.integers().between(1, maxPermits),
                Arbitraries.longs().between(0, 3_000_000)).as(Step::new).list().ofMaxSize(maxSteps);
    }

    /**
     * Runs {@code steps} on {@code limit}, which must read {@code clock} and whose {@code
     * acquire} must sleep by moving it; throws {@link AssertionError} at the first step the
     * model refutes.
     */
    public static void check(KeyedLimit<String> limit, ManualClock clock, List<Step> steps) throws InterruptedException {
        if (clock.nanoTime() % US != 0) {
            throw new IllegalArgumentException("the clock must start on a whole microsecond, got " + clock.nanoTime());
        }
        KeyedLimitModel model = new KeyedLimitModel(limit, clock);
        for (Step s : steps) {
            model.run(s);
            model.step++;
        }
        model.checkBound();
    }

    private void run(Step s) throws InterruptedException {
        clock.advanceNanos(s.gapMicros() * US);
        String key = "k" + s.key();
        long permits = s.permits();
        long timeout = s.timeoutMicros() * US;
        switch (s.kind()) {
            case TRY -> {
                long wait = limit.tryAcquire(key, permits);
                if (wait == 0L) {
                    admit(key, permits);
                } else {
                    refusedAlike(key, permits, wait);
                    waitOut(key, permits, wait);
                }
            }
            case PROBE -> {
                if (limit.tryAcquire(key, permits, probe)) {
                    admit(key, permits);
                    remainingIsExact(key, probe.remaining());
                } else {
                    refusedAlike(key, permits, probe.waitNanos());
                }
            }
            case ACQUIRE -> {
                long start = clock.nanoTime();
                boolean got = limit.acquire(key, permits, Duration.ofNanos(timeout));
                waited(key, permits, timeout, start, got);
            }
            case ASYNC -> {
                long start = clock.nanoTime();
                CompletableFuture<Boolean> stage = limit.acquireAsync(key, permits, Duration.ofNanos(timeout), scheduler)
                        .toCompletableFuture();
                scheduler.runUntilIdle();
                expect(stage.isDone(), "acquireAsync's stage is complete once its scheduler is idle");
                waited(key, permits, timeout, start, stage.join());
            }
        }
    }

    private void admit(String key, long permits) {
        admitted.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {clock.nanoTime(), permits});
    }

    /** A refused call, asked again at the same reading, is refused alike: the refusal changed nothing. */
    private void refusedAlike(String key, long permits, long wait) {
        expect(wait > 0L, "a refusal answers a positive wait, got " + wait);
        expect(!limit.tryAcquire(key, permits, again), "refused at a reading, refused again at the same one");
        expect(again.waitNanos() == wait, "the same wait after a refusal: " + wait + " then " + again.waitNanos());
        expect(limit.tryAcquire(key, permits) == wait, "the probe-free call answers the same wait " + wait);
    }

    /** The wait is exact: a microsecond sooner is refused, the wait itself admitted. */
    private void waitOut(String key, long permits, long wait) {
        expect(wait % US == 0L, "a wait on whole microseconds, got " + wait);
        clock.advanceNanos(wait - US);
        expect(limit.tryAcquire(key, permits) > 0L, "a microsecond before the wait of " + wait + " is refused");
        clock.advanceNanos(US);
        expect(limit.tryAcquire(key, permits) == 0L, "after the wait of " + wait + " the same call is admitted");
        admit(key, permits);
    }

    /** An admission's remaining permits are exactly what the next call at the same reading can take. */
    private void remainingIsExact(String key, long remaining) {
        expect(remaining >= 0L && remaining <= maxPermits, "remaining from 0 to the smallest burst, got " + remaining);
        if (remaining < maxPermits) {
            expect(limit.tryAcquire(key, remaining + 1) > 0L, "remaining " + remaining + ": one more is refused");
        }
        if (remaining > 0L) {
            expect(limit.tryAcquire(key, remaining) == 0L, "remaining " + remaining + ": that many are admitted");
            admit(key, remaining);
        }
    }

    /** A waiting call admits exactly when its first wait fits the timeout, and waits no longer. */
    private void waited(String key, long permits, long timeout, long start, boolean got) {
        long slept = clock.nanoTime() - start;
        if (got) {
            expect(slept <= timeout, "admitted after " + slept + " ns, past the timeout of " + timeout);
            admit(key, permits);
        } else {
            expect(slept == 0L, "a wait longer than the timeout is refused at once, not after " + slept + " ns");
            expect(!limit.tryAcquire(key, permits, again), "refused by the waiting call, refused by the probe");
            expect(again.waitNanos() > timeout, "refused although the wait " + again.waitNanos() + " fits " + timeout);
        }
    }

    private void checkBound() {
        for (Limit bw : limit.bandwidths()) {
            long interval = bw.intervalNanos();
            for (Map.Entry<String, List<long[]>> e : admitted.entrySet()) {
                List<long[]> calls = e.getValue();
                for (int i = 0; i < calls.size(); i++) {
                    long sum = 0L;
                    for (int j = i; j < calls.size(); j++) {
                        sum += calls.get(j)[1];
                        long span = calls.get(j)[0] - calls.get(i)[0];
                        if ((sum - bw.burst()) * interval > span) {
                            throw new AssertionError("key " + e.getKey() + " took " + sum + " permits in " + span
                                    + " ns, more than " + bw + " allows");
                        }
                    }
                }
            }
        }
    }

    private void expect(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError("step " + step + ": " + what + " (" + limit + ")");
        }
    }
}

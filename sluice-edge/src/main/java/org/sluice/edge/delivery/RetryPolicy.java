package org.sluice.edge.delivery;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The retry schedule of one destination and the verdict on each attempt. Pure: no clock,
 * no I/O; callers pass the attempt number, the age of the hook and a random source.
 *
 * <h2>Schedule</h2>
 * Attempt {@code n+1} waits {@code base(n) = min(max_ms, initial_ms * 2^(n-1))} times a
 * random factor in [0.5, 1]: in integers, a delay drawn uniformly from
 * {@code [ceil(base/2), base]} milliseconds. After a 429 or 503 whose {@code Retry-After}
 * asks for {@code r} ms, the wait is at least {@code min(r, max_ms)}.
 *
 * <h2>Verdict</h2>
 * A 2xx answer is delivered. A status in {@code permanent_statuses} is dead at once
 * ({@link DeadReason#PERMANENT_STATUS}), and so is a broker's permanent refusal
 * ({@link AttemptResult.Permanent}, {@link DeadReason#PERMANENT_ERROR}). Anything else (other statuses, 1xx and 3xx
 * included, since redirects are not followed; connect errors, resets, timeouts) is retried,
 * unless attempt {@code n} was the {@code max_attempts}-th ({@link DeadReason#MAX_ATTEMPTS})
 * or the hook is too old ({@link DeadReason#MAX_AGE}).
 *
 * <h2>Age</h2>
 * An attempt may start while the hook's age is below {@code max_age_seconds}
 * ({@link #expired}). A retry is not scheduled when it would fall at or past that age: the
 * delivery is dead by {@code max_age} right away instead of holding a row that can never
 * be tried. A delivery that waited longer than its delay (breaker open, destination paused)
 * is checked with {@link #expired} when it comes due.
 */
public final class RetryPolicy {

    public static final long DEFAULT_INITIAL_MS = 1_000;
    public static final long DEFAULT_MAX_MS = 3_600_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 20;
    public static final long DEFAULT_MAX_AGE_SECONDS = 259_200;
    public static final List<Integer> DEFAULT_PERMANENT_STATUSES = List.of(400, 401, 403, 404, 405, 410, 413, 415, 422);

    private static final int LOWEST_PERMANENT = 300;
    private static final int HIGHEST_PERMANENT = 599;

    private final long initialMs;
    private final long maxMs;
    private final int maxAttempts;
    private final long maxAgeMs;
    private final BitSet permanent;

    private RetryPolicy(long initialMs, long maxMs, int maxAttempts, long maxAgeSeconds, List<Integer> permanentStatuses) {
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.maxAttempts = maxAttempts;
        this.maxAgeMs = maxAgeSeconds * 1000;
        this.permanent = new BitSet(HIGHEST_PERMANENT + 1);
        permanentStatuses.forEach(permanent::set);
    }

    /** {@code retry: {initial_ms: 1000, max_ms: 3600000, max_attempts: 20, max_age_seconds: 259200}}. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(DEFAULT_INITIAL_MS, DEFAULT_MAX_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_AGE_SECONDS,
                DEFAULT_PERMANENT_STATUSES);
    }

    /**
     * The policy of the destination configured at {@code destinationPath} (e.g.
     * {@code destinations.app}), whose keys are {@code retry.initial_ms}, {@code retry.max_ms},
     * {@code retry.max_attempts}, {@code retry.max_age_seconds} and {@code retry.permanent_statuses}.
     *
     * @throws SettingsException listing every bad value, each message naming its key path and value
     */
    public static RetryPolicy of(String destinationPath, long initialMs, long maxMs, long maxAttempts,
                                 long maxAgeSeconds, List<Integer> permanentStatuses) {
        String retry = destinationPath + ".retry.";
        List<String> problems = new ArrayList<>();
        GrowingDelay.check(problems, retry, "initial_ms", initialMs, "max_ms", maxMs);
        if (maxAttempts < 1 || maxAttempts > Integer.MAX_VALUE) {
            problems.add(retry + "max_attempts must be an integer from 1 to " + Integer.MAX_VALUE + ", got " + maxAttempts);
        }
        long maxAgeLimit = Long.MAX_VALUE / 1000;
        if (maxAgeSeconds < 1 || maxAgeSeconds > maxAgeLimit) {
            problems.add(retry + "max_age_seconds must be an integer from 1 to " + maxAgeLimit + ", got " + maxAgeSeconds);
        }
        if (permanentStatuses == null) {
            problems.add(retry + "permanent_statuses must be a list of statuses, got nothing");
        } else {
            for (int i = 0; i < permanentStatuses.size(); i++) {
                Integer s = permanentStatuses.get(i);
                if (s == null || s < LOWEST_PERMANENT || s > HIGHEST_PERMANENT) {
                    problems.add(retry + "permanent_statuses[" + i + "] must be a status from "
                            + LOWEST_PERMANENT + " to " + HIGHEST_PERMANENT + " (2xx is delivered), got " + s);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new RetryPolicy(initialMs, maxMs, (int) maxAttempts, maxAgeSeconds, permanentStatuses);
    }

    public long initialMs() {
        return initialMs;
    }

    public long maxMs() {
        return maxMs;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public long maxAgeMillis() {
        return maxAgeMs;
    }

    // ------------------------------------------------------------------ schedule

    /** {@code min(max_ms, initial_ms * 2^(attempt-1))}, without overflow: the top of the jitter window. */
    public long backoff(int attempt) {
        requireAttempt(attempt);
        int shift = attempt - 1;
        if (shift >= Long.SIZE - 1 || initialMs > (maxMs >>> shift)) {
            return maxMs;
        }
        return Math.min(maxMs, initialMs << shift);
    }

    /**
     * The wait in milliseconds before attempt {@code attempt + 1}, after attempt
     * {@code attempt} failed: uniform in {@code [ceil(backoff/2), backoff]}. Calls
     * {@code random.nextLong(bound)} once.
     */
    public long nextDelay(int attempt, RandomGenerator random) {
        long base = backoff(attempt);
        long low = base - base / 2;
        return low + random.nextLong(base - low + 1);
    }

    /**
     * As {@link #nextDelay(int, RandomGenerator)}, but at least {@code min(retryAfterMillis,
     * max_ms)} when {@code retryAfterMillis} is not negative.
     */
    public long nextDelay(int attempt, RandomGenerator random, long retryAfterMillis) {
        long jittered = nextDelay(attempt, random);
        return retryAfterMillis < 0 ? jittered : Math.max(jittered, Math.min(retryAfterMillis, maxMs));
    }

    // ------------------------------------------------------------------ verdict

    /** The verdict on one answer or failure, before limits of count and age are applied. */
    public enum Verdict { DELIVERED, RETRY, PERMANENT }

    public Verdict classify(int status) {
        if (status >= 200 && status <= 299) {
            return Verdict.DELIVERED;
        }
        if (status >= LOWEST_PERMANENT && status <= HIGHEST_PERMANENT && permanent.get(status)) {
            return Verdict.PERMANENT;
        }
        return Verdict.RETRY;
    }

    public Verdict classify(AttemptResult result) {
        java.util.Objects.requireNonNull(result, "result");
        // Java 17: no pattern switch over the sealed kinds
        if (result instanceof AttemptResult.Answered a) {
            return classify(a.status());
        }
        if (result instanceof AttemptResult.Acknowledged) {
            return Verdict.DELIVERED;
        }
        return result instanceof AttemptResult.Permanent || result instanceof AttemptResult.Untransformable
                ? Verdict.PERMANENT : Verdict.RETRY;
    }

    /** True when no attempt may start any more: the hook is {@code max_age_seconds} old or older. */
    public boolean expired(long ageMillis) {
        return ageMillis >= maxAgeMs;
    }

    /**
     * What becomes of the delivery after attempt {@code attempt} (from 1) ended with
     * {@code result}, the hook being {@code ageMillis} old now.
     */
    public Decision decide(int attempt, AttemptResult result, long ageMillis, RandomGenerator random) {
        requireAttempt(attempt);
        switch (classify(result)) {
            case DELIVERED:
                return new Decision.Delivered();
            case PERMANENT:
                return new Decision.Dead(result instanceof AttemptResult.Permanent ? DeadReason.PERMANENT_ERROR
                        : result instanceof AttemptResult.Untransformable ? DeadReason.TRANSFORM_ERROR
                        : DeadReason.PERMANENT_STATUS);
            default:
                break;
        }
        if (attempt >= maxAttempts) {
            return new Decision.Dead(DeadReason.MAX_ATTEMPTS);
        }
        long delay = nextDelay(attempt, random, retryAfter(result));
        if (expired(ageMillis) || delay >= maxAgeMs - ageMillis) {
            return new Decision.Dead(DeadReason.MAX_AGE);
        }
        return new Decision.Retry(delay);
    }

    /** Retry-After counts only on 429 and 503. */
    private static long retryAfter(AttemptResult result) {
        if (result instanceof AttemptResult.Answered a && (a.status() == 429 || a.status() == 503)) {
            return a.retryAfterMillis();
        }
        return RetryAfter.NONE;
    }

    private static void requireAttempt(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempts count from 1, got " + attempt);
        }
    }
}

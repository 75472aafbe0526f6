package org.sluice.edge.delivery;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code breaker} block of one destination: open after {@code failures} failed attempts
 * in a row, stay open {@code open_ms}, doubling per re-open up to {@code max_open_ms}; and
 * disabled (nothing sent until an operator enables it) once it has failed without a single
 * success for {@code disable_after_seconds} ({@code disableAfterMs} here; 0: never).
 */
public record BreakerSettings(int failures, long openMs, long maxOpenMs, long disableAfterMs) {

    public static final int DEFAULT_FAILURES = 5;
    public static final long DEFAULT_OPEN_MS = 30_000;
    public static final long DEFAULT_MAX_OPEN_MS = 600_000;
    /** {@code disable_after_seconds: 432000}: five days. */
    public static final long DEFAULT_DISABLE_AFTER_SECONDS = 432_000;
    /** The largest {@code disable_after_seconds}: ten years of 365 days. */
    public static final long MAX_DISABLE_AFTER_SECONDS = 315_360_000;

    /** Use {@link #of} or {@link #defaults()}: they validate. */
    public BreakerSettings {
        if (failures < 1 || openMs < 1 || maxOpenMs < openMs || disableAfterMs < 0) {
            throw new IllegalArgumentException("breaker settings out of range: " + failures + ", " + openMs + ", "
                    + maxOpenMs + ", " + disableAfterMs);
        }
    }

    /** Settings that disable after the default five days. */
    public BreakerSettings(int failures, long openMs, long maxOpenMs) {
        this(failures, openMs, maxOpenMs, DEFAULT_DISABLE_AFTER_SECONDS * 1000);
    }

    /** Whether failing long enough disables the destination ({@code disable_after_seconds} above 0). */
    public boolean disables() {
        return disableAfterMs > 0;
    }

    /** {@code breaker: {failures: 5, open_ms: 30000, max_open_ms: 600000}}. */
    public static BreakerSettings defaults() {
        return new BreakerSettings(DEFAULT_FAILURES, DEFAULT_OPEN_MS, DEFAULT_MAX_OPEN_MS);
    }

    /**
     * The settings of the destination configured at {@code destinationPath} (e.g.
     * {@code destinations.app}).
     *
     * @throws SettingsException listing every bad value, each message naming its key path and value
     */
    public static BreakerSettings of(String destinationPath, long failures, long openMs, long maxOpenMs) {
        return of(destinationPath, failures, openMs, maxOpenMs, DEFAULT_DISABLE_AFTER_SECONDS);
    }

    /** As {@link #of(String, long, long, long)}, with {@code disable_after_seconds} (0: never disabled). */
    public static BreakerSettings of(String destinationPath, long failures, long openMs, long maxOpenMs,
                                     long disableAfterSeconds) {
        String at = destinationPath + ".breaker.";
        List<String> problems = new ArrayList<>();
        if (failures < 1 || failures > Integer.MAX_VALUE) {
            problems.add(at + "failures must be an integer from 1 to " + Integer.MAX_VALUE + ", got " + failures);
        }
        GrowingDelay.check(problems, at, "open_ms", openMs, "max_open_ms", maxOpenMs);
        if (disableAfterSeconds < 0 || disableAfterSeconds > MAX_DISABLE_AFTER_SECONDS) {
            problems.add(at + "disable_after_seconds must be an integer from 0 (never) to " + MAX_DISABLE_AFTER_SECONDS
                    + ", got " + disableAfterSeconds);
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new BreakerSettings((int) failures, openMs, maxOpenMs, disableAfterSeconds * 1000);
    }
}

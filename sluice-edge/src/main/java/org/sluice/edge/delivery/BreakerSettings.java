package org.sluice.edge.delivery;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code breaker} block of one destination: open after {@code failures} failed attempts
 * in a row, stay open {@code open_ms}, doubling per re-open up to {@code max_open_ms}.
 */
public record BreakerSettings(int failures, long openMs, long maxOpenMs) {

    public static final int DEFAULT_FAILURES = 5;
    public static final long DEFAULT_OPEN_MS = 30_000;
    public static final long DEFAULT_MAX_OPEN_MS = 600_000;

    /** Use {@link #of} or {@link #defaults()}: they validate. */
    public BreakerSettings {
        if (failures < 1 || openMs < 1 || maxOpenMs < openMs) {
            throw new IllegalArgumentException("breaker settings out of range: " + failures + ", " + openMs + ", " + maxOpenMs);
        }
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
        String at = destinationPath + ".breaker.";
        List<String> problems = new ArrayList<>();
        if (failures < 1 || failures > Integer.MAX_VALUE) {
            problems.add(at + "failures must be an integer from 1 to " + Integer.MAX_VALUE + ", got " + failures);
        }
        GrowingDelay.check(problems, at, "open_ms", openMs, "max_open_ms", maxOpenMs);
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new BreakerSettings((int) failures, openMs, maxOpenMs);
    }
}

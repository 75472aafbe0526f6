package org.sluice.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting, in tests, for something background work makes true (a reconnect, a drain, a
 * delivery). The one polling helper of the project's tests: it sleeps between looks
 * (1 ms, doubling to 20 ms) rather than spinning, so on a small machine it does not
 * compete with the server it waits for, and it fails with what it waited for once the
 * bound has passed. The bound is a safety net, never the thing a test asserts.
 */
public final class Eventually {

    /** The bound used when a test names none: generous, for a loaded two-core machine. */
    public static final Duration DEFAULT_BOUND = Duration.ofSeconds(30);

    private static final long MAX_PAUSE_NANOS = 20_000_000L;

    private Eventually() {
    }

    /** Waits up to {@link #DEFAULT_BOUND} until {@code condition} holds. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_BOUND, condition);
    }

    /**
     * Waits up to {@code bound} until {@code condition} holds.
     *
     * @throws AssertionError naming {@code what} when the bound passes first, or when interrupted
     */
    public static void until(String what, Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        long pause = 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + bound.toMillis() + " ms waiting for " + what);
            }
            try {
                Thread.sleep(pause / 1_000_000L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
            pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
        }
    }
}

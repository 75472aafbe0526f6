package org.sluice.core;

/**
 * What one call of {@link Limiter#tryAcquire(long, Probe)}, {@link
 * KeyedLimiter#tryAcquire(Object, long, Probe)} or {@link RateLimiter#tryAcquire(String,
 * int, Probe)} found, written into a holder the caller
 * owns: whether the permits were admitted, how many whole permits remain after the call,
 * the wait in nanoseconds when refused, and the time until the bucket is full again.
 *
 * <p>A mutable holder rather than a returned value so that the hot path allocates
 * nothing: a caller keeps one {@code Probe} per thread (or per request, when it has one
 * anyway) and reuses it. A {@code Probe} is not thread-safe; it holds the answer of the
 * last call that wrote it.
 *
 * <pre>
 * Probe probe = new Probe();
 * if (limiter.tryAcquire(1, probe)) {
 *     response.header("RateLimit-Remaining", probe.remaining());
 *     response.header("RateLimit-Reset", (probe.resetNanos() + 999_999_999L) / 1_000_000_000L);
 * } else {
 *     response.header("Retry-After", probe.waitNanos() / 1_000_000_000L + 1);
 * }
 * </pre>
 */
public final class Probe {

    private boolean admitted;
    private long remaining;
    private long waitNanos;
    private long resetNanos;

    /** An empty probe: not admitted, nothing remaining, no wait, until a call writes it. */
    public Probe() {
    }

    /** True when the call admitted (and charged) its permits. */
    public boolean admitted() {
        return admitted;
    }

    /**
     * Whole permits a call could take right after this one, at the same reading of the
     * clock: the smallest over a {@link Limiter}'s bandwidths, or the key's for a {@link
     * RateLimiter}.
     */
    public long remaining() {
        return remaining;
    }

    /** 0 when admitted, else nanoseconds until the same call would be admitted (at least 1). */
    public long waitNanos() {
        return waitNanos;
    }

    /**
     * Nanoseconds from the call's reading until the bucket is full again if nothing else
     * is charged (0 = full): the largest over a limiter's bandwidths. The {@code reset}
     * of a {@code RateLimit} header, in seconds rounded up.
     */
    public long resetNanos() {
        return resetNanos;
    }

    /**
     * Writes an answer. For limiters: implementations of {@link KeyedLimit} outside this
     * package (the shared-memory one) answer through it.
     */
    public void set(boolean admitted, long remaining, long waitNanos, long resetNanos) {
        this.admitted = admitted;
        this.remaining = remaining;
        this.waitNanos = waitNanos;
        this.resetNanos = resetNanos;
    }

    @Override
    public String toString() {
        return "Probe[admitted=" + admitted + ", remaining=" + remaining + ", waitNanos=" + waitNanos
                + ", resetNanos=" + resetNanos + "]";
    }
}

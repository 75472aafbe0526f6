package org.sluice.servlet;

import java.util.List;
import org.sluice.core.Limit;
import org.sluice.core.Probe;

/**
 * The header values of one limit, in the form sluice-edge answers with (the IETF
 * RateLimit header fields draft, as structured-field values):
 * <pre>
 *   RateLimit-Policy: "&lt;name&gt;";q=&lt;burst&gt;;w=&lt;seconds to refill a burst&gt;   (one item per bandwidth)
 *   RateLimit:        "&lt;name&gt;";r=&lt;permits left&gt;;t=&lt;seconds until full&gt;
 *   Retry-After:      &lt;seconds&gt;                                         (refusals only)
 * </pre>
 * Seconds are whole and rounded up; {@code Retry-After} is at least 1. With several
 * bandwidths the policy names them {@code name}, {@code name-2}, ... and {@code RateLimit}
 * carries the probe's answer over all of them (the fewest permits left, the longest time
 * to full).
 *
 * <p>sluice-netty keeps the same class: each integration module depends on sluice-core
 * alone, and these few lines are not worth a module or a place in core's pinned API. It
 * is public for the Spring Boot starter's WebFlux filter, which depends on this module
 * anyway; it reads no servlet type. Immutable and thread-safe.
 */
public final class RateLimitFields {

    private static final long SECOND = 1_000_000_000L;

    private final String name;
    private final String policy;

    /**
     * @param name the policy's name, one {@link #checkName} accepts
     * @param bandwidths the limit's bandwidths, one policy item each
     */
    public RateLimitFields(String name, List<Limit> bandwidths) {
        this.name = name;
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < bandwidths.size(); i++) {
            Limit limit = bandwidths.get(i);
            long window = Math.max(1L, (long) Math.ceil(limit.burst() / limit.rate()));
            p.append(i == 0 ? "" : ", ").append('"').append(name).append(i == 0 ? "" : "-" + (i + 1)).append('"')
                    .append(";q=").append(limit.burst()).append(";w=").append(window);
        }
        this.policy = p.toString();
    }

    /** The {@code RateLimit-Policy} value, the same for every response. */
    public String policy() {
        return policy;
    }

    /** The {@code RateLimit} value after the call {@code probe} describes. */
    public String current(Probe probe) {
        return "\"" + name + "\";r=" + probe.remaining() + ";t=" + ceilSeconds(probe.resetNanos());
    }

    /** {@code name} when it is a token of letters, digits, {@code - _ .}, else an exception naming it. */
    public static String checkName(String name) {
        if (name == null || name.isEmpty() || !name.chars().allMatch(RateLimitFields::tokenChar)) {
            throw new IllegalArgumentException("policyName must be letters, digits, - _ or ., got " + name);
        }
        return name;
    }

    private static boolean tokenChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    }

    /** The {@code Retry-After} seconds of a refusal: the wait rounded up, at least 1. */
    public static long retryAfterSeconds(Probe probe) {
        return Math.max(1L, ceilSeconds(probe.waitNanos()));
    }

    private static long ceilSeconds(long nanos) {
        return nanos / SECOND + (nanos % SECOND > 0 ? 1 : 0);
    }
}

package org.sluice.edge.admission;

import org.sluice.core.Limit;

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) for a tenant's
 * hook quota, as structured-field values:
 * <pre>
 *   RateLimit-Policy: "tenant";q=&lt;burst&gt;;w=&lt;seconds to refill a burst&gt;
 *   RateLimit:        "tenant";r=&lt;hooks it could send now&gt;;t=&lt;seconds until full&gt;
 * </pre>
 * A GCRA bucket is a quota of {@code burst} hooks that refills at {@code rate}: the window
 * {@code w} is the time a whole burst takes to refill, and {@code t} the time until the
 * bucket is full again (0 when it is).
 *
 * @param policy the {@code RateLimit-Policy} value
 * @param current the {@code RateLimit} value
 */
public record RateLimitFields(String policy, String current) {

    static final String POLICY = "tenant";

    /** The fields of a bucket under {@code limit} that holds {@code remaining} hooks. */
    static RateLimitFields of(Limit limit, double remaining) {
        long burst = limit.burst();
        long window = Math.max(1L, (long) Math.ceil(burst / limit.rate()));
        long left = (long) Math.floor(Math.max(0.0, Math.min(burst, remaining)));
        double missing = burst - Math.max(0.0, Math.min(burst, remaining));
        long reset = (long) Math.ceil(missing / limit.rate());
        return new RateLimitFields("\"" + POLICY + "\";q=" + burst + ";w=" + window,
                "\"" + POLICY + "\";r=" + left + ";t=" + reset);
    }
}

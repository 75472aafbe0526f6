package org.sluice.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Objects;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Probe;

/**
 * A servlet filter that charges one permit per request to a {@link KeyedLimit} (any scope:
 * a {@code KeyedLimiter} in memory, a shared-memory or a Redis limiter) under the key a
 * {@link RequestKey} gives. An admitted request goes down the chain with {@code
 * RateLimit-Policy} and {@code RateLimit} set on its response; a refused one is answered
 * {@code 429 Too Many Requests} with {@code Retry-After} and the same two fields, and the
 * chain is not called. The filter holds no state of its own: it is thread-safe if the
 * limit is.
 *
 * <pre>
 * KeyedLimiter&lt;String&gt; limit = KeyedLimiter.&lt;String&gt;builder().bandwidth(Limit.of(10, 20)).build();
 * Filter filter = RateLimitFilter.builder(limit)
 *     .key(RequestKey.clientAddress(List.of("10.0.0.0/8")))
 *     .build();
 * </pre>
 */
public final class RateLimitFilter implements Filter {

    private final KeyedLimit<String> limit;
    private final RequestKey key;
    private final RateLimitFields fields;

    private RateLimitFilter(Builder builder) {
        this.limit = builder.limit;
        this.key = builder.key;
        this.fields = new RateLimitFields(builder.policyName, builder.limit.bandwidths());
    }

    /** A filter over {@code limit}; by default keyed by the peer's address under the policy name {@code "default"}. */
    public static Builder builder(KeyedLimit<String> limit) {
        return new Builder(limit);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        Probe probe = new Probe();
        boolean admitted = limit.tryAcquire(key.of(http), 1, probe);
        out.setHeader("RateLimit-Policy", fields.policy());
        out.setHeader("RateLimit", fields.current(probe));
        if (admitted) {
            chain.doFilter(request, response);
            return;
        }
        out.setStatus(429);
        out.setHeader("Retry-After", Long.toString(RateLimitFields.retryAfterSeconds(probe)));
        out.setContentLength(0);
    }

    /** Builds a {@link RateLimitFilter}. */
    public static final class Builder {

        private final KeyedLimit<String> limit;
        private RequestKey key = RequestKey.clientAddress();
        private String policyName = "default";

        private Builder(KeyedLimit<String> limit) {
            this.limit = Objects.requireNonNull(limit, "limit");
        }

        /** What each request is counted against (default: the peer's address). */
        public Builder key(RequestKey key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        /** The policy's name in the {@code RateLimit} fields: a token of letters, digits, {@code - _ .}. */
        public Builder policyName(String name) {
            this.policyName = RateLimitFields.checkName(name);
            return this;
        }

        public RateLimitFilter build() {
            return new RateLimitFilter(this);
        }
    }
}

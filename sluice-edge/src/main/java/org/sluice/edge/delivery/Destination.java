package org.sluice.edge.delivery;

import org.sluice.edge.delivery.targets.Target;
import java.util.Objects;
import java.util.Optional;
import org.sluice.edge.route.Transform;
import org.sluice.core.Limit;

/**
 * {@code destinations.<name>:} one place accepted hooks are handed on to, validated.
 *
 * @param name        the key under {@code destinations}, 1-64 of {@code A-Z a-z 0-9 _ -}
 * @param target      where attempts go and that way's own settings (its {@code type}): one of a sealed set
 * @param timeoutMs   the whole attempt, connect included
 * @param maxInFlight attempts to this destination at once
 * @param rate        attempts per second (with burst), fixed; empty: unpaced, or paced {@code adaptive}
 * @param headers     what every attempt carries (forwarded, configured and Sluice's own)
 * @param ordering    {@code none} or {@code fifo}
 * @param retry       when to try again and when to give up
 * @param breaker     when to stop trying for a while
 * @param transform   how each attempt is reshaped ({@code transform}, {@code http} only); empty: sent as received
 * @param adaptive    {@code rate: {rate: adaptive, min, max}}: a pace that follows the answers; empty: fixed
 *                    ({@code rate}) or unpaced. Never present together with {@code rate}.
 */
public record Destination(
        String name,
        Target target,
        long timeoutMs,
        int maxInFlight,
        Optional<Limit> rate,
        OutboundHeaders headers,
        Ordering ordering,
        RetryPolicy retry,
        BreakerSettings breaker,
        Optional<Transform> transform,
        Optional<AdaptiveRate> adaptive) {

    public static final long DEFAULT_TIMEOUT_MS = 15_000;
    public static final int DEFAULT_MAX_IN_FLIGHT = 32;

    public Destination {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(breaker, "breaker");
        Objects.requireNonNull(transform, "transform");
        Objects.requireNonNull(adaptive, "adaptive");
        if (rate.isPresent() && adaptive.isPresent()) {
            throw new IllegalArgumentException("a destination is paced at a fixed rate or adaptive, not both");
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
        }
    }

    /** A destination paced at a fixed rate, or unpaced. */
    public Destination(String name, Target target, long timeoutMs, int maxInFlight, Optional<Limit> rate,
                       OutboundHeaders headers, Ordering ordering, RetryPolicy retry, BreakerSettings breaker,
                       Optional<Transform> transform) {
        this(name, target, timeoutMs, maxInFlight, rate, headers, ordering, retry, breaker, transform, Optional.empty());
    }

    /** A destination that sends each hook as received. */
    public Destination(String name, Target target, long timeoutMs, int maxInFlight, Optional<Limit> rate,
                       OutboundHeaders headers, Ordering ordering, RetryPolicy retry, BreakerSettings breaker) {
        this(name, target, timeoutMs, maxInFlight, rate, headers, ordering, retry, breaker, Optional.empty(),
                Optional.empty());
    }

    /** The configured {@code type}: {@link Target#type()}. */
    public String type() {
        return target.type();
    }

    /**
     * The target as the transport of its kind reads it: the one checked cast from the sealed
     * {@link Target} to its record, for a transport handed a destination of its own kind.
     *
     * @throws IllegalArgumentException naming the destination, when its target is of another kind
     */
    public <T extends Target> T target(Class<T> kind) {
        if (kind.isInstance(target)) {
            return kind.cast(target);
        }
        throw new IllegalArgumentException("destinations." + name + " is a " + type() + " destination, not "
                + kind.getSimpleName());
    }

    /** Never prints the signing secret, configured header values or broker credentials. */
    @Override
    public String toString() {
        return "Destination[" + name + ", " + type() + " " + target + ", timeout_ms=" + timeoutMs
                + ", max_in_flight=" + maxInFlight + ", rate="
                + rate.map(Limit::toString).orElseGet(() -> adaptive.map(AdaptiveRate::toString).orElse("unpaced"))
                + ", signed=" + headers.signs() + ", ordering=" + ordering.configName()
                + transform.map(t -> ", " + t).orElse("") + "]";
    }
}

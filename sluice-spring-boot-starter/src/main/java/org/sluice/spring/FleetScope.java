package org.sluice.spring;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;
import org.sluice.core.Clock;
import org.sluice.core.KeyedLimit;
import org.sluice.core.Limit;
import org.sluice.core.LimitChange;
import org.sluice.core.LimiterListener;
import org.sluice.core.Probe;
import org.sluice.core.Sleeper;
import org.sluice.fleet.FleetLimiter;
import org.sluice.fleet.FleetSettings;

/**
 * The {@code redis} scope: a sluice-fleet {@code FleetLimiter} per route, every node of
 * the fleet sharing each key's buckets in Redis. Its own class so that sluice-fleet (an
 * optional dependency) is only loaded when the scope is chosen: its methods take and
 * return core types only.
 *
 * <p>The starter's keys ({@code addr:10.0.0.7}, {@code header:<any value>}) are not Redis
 * key material a fleet limiter takes (1 to 128 of {@code A-Z a-z 0-9 . _ -}), so each is
 * hashed first: the first 128 bits of its SHA-256, in hex. A route's limiter in Redis is
 * named {@code <namespace>.<route>} ({@code sluice.limiter.redis.namespace}, else the
 * application's name), or after the route alone when there is neither: two applications
 * sharing one Redis share a route's buckets only when they share its full name.
 */
final class FleetScope implements AutoCloseable {

    private static final String PREFIX = "sluice.limiter.redis.";

    /** A namespace: 1 to 64 of the characters a fleet limiter's name may hold. */
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final FleetSettings settings;
    /** What every limiter's name starts with, {@code <namespace>.}; empty for none. */
    private final String prefix;
    private final List<FleetLimiter> limiters = new ArrayList<>();

    private FleetScope(FleetSettings settings, String prefix) {
        this.settings = settings;
        this.prefix = prefix;
    }

    /**
     * @param applicationName {@code spring.application.name}, or null: the namespace when
     *                        {@code redis} names none
     * @throws IllegalArgumentException naming the key of a bad setting
     */
    static FleetScope open(SluiceLimiterProperties.Redis redis, String applicationName) {
        String uri = redis.getUri();
        if (uri == null || !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
            // only the scheme is shown: the rest may hold a password (user:secret@host)
            int scheme = uri == null ? -1 : uri.indexOf("://");
            throw new IllegalArgumentException(PREFIX + "uri must be a redis:// or rediss:// URI in the redis scope, got "
                    + (uri == null ? "none" : scheme < 0 ? "a value with no scheme" : uri.substring(0, scheme) + "://..."));
        }
        if (redis.getTimeoutMs() < 1) {
            throw new IllegalArgumentException(PREFIX + "timeout-ms must be at least 1, got " + redis.getTimeoutMs());
        }
        String namespace = redis.getNamespace() != null ? redis.getNamespace() : applicationName;
        if (namespace != null && !NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException(PREFIX + "namespace"
                    + (redis.getNamespace() == null ? " (spring.application.name, as it is not set)" : "")
                    + " must be 1 to 64 letters, digits, - _ or ., got " + namespace);
        }
        return new FleetScope(FleetSettings.defaults().withRedis(uri).withTimeoutMs(redis.getTimeoutMs()),
                namespace == null ? "" : namespace + '.');
    }

    /**
     * The route's limiter of {@code limits} on {@code clock}, telling {@code listener} (when
     * not null) its decisions; {@code scriptClock}, when not null, is sent as the time of
     * the charges instead of Redis's (the application's own clock bean: a test's).
     */
    KeyedLimit<String> limiter(String route, List<Limit> limits, Clock clock, Clock scriptClock, LimiterListener listener) {
        FleetLimiter.Builder builder = FleetLimiter.builder(settings, prefix + route).clock(clock).scriptClock(scriptClock);
        limits.forEach(builder::bandwidth);
        if (listener != null) {
            builder.listener(listener);
        }
        FleetLimiter limiter = builder.build();
        limiters.add(limiter);
        return new Hashed(limiter);
    }

    @Override
    public void close() {
        limiters.forEach(FleetLimiter::close);
    }

    /** A fleet limiter taking any key: each hashed to 32 hex digits before it reaches Redis. */
    private record Hashed(FleetLimiter fleet) implements KeyedLimit<String> {

        static String hash(String key) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
                return HexFormat.of().formatHex(digest, 0, 16);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform has SHA-256", e);
            }
        }

        @Override
        public long tryAcquire(String key, long permits) {
            return fleet.tryAcquire(hash(key), permits);
        }

        @Override
        public boolean tryAcquire(String key, long permits, Probe probe) {
            return fleet.tryAcquire(hash(key), permits, probe);
        }

        @Override
        public void reset(String key) {
            fleet.reset(hash(key));
        }

        @Override
        public List<Limit> bandwidths() {
            return fleet.bandwidths();
        }

        @Override
        public boolean acquire(String key, long permits, Duration timeout) throws InterruptedException {
            return fleet.acquire(hash(key), permits, timeout);
        }

        @Override
        public CompletionStage<Boolean> acquireAsync(String key, long permits, Duration timeout, ScheduledExecutorService scheduler) {
            return fleet.acquireAsync(hash(key), permits, timeout, scheduler);
        }

        @Override
        public Clock clock() {
            return fleet.clock();
        }

        @Override
        public Sleeper sleeper() {
            return fleet.sleeper();
        }

        @Override
        public LimiterListener listener() {
            return fleet.listener();
        }

        @Override
        public void replaceBandwidths(List<Limit> limits, LimitChange change) {
            fleet.replaceBandwidths(limits, change);
        }
    }
}

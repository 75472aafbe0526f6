package org.sluice.bench.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.sluice.core.Limit;
import org.sluice.core.RateLimiter;

/** Builds every limiter under comparison with the same rate (per second) and burst. */
final class Competitors {

    private Competitors() {
    }

    static RateLimiter sluice(double rate, int burst) {
        return RateLimiter.builder().limit(Limit.of(rate, burst)).build();
    }

    /** Bucket4j's local bucket; LOCK_FREE is its default synchronisation strategy. */
    static Bucket bucket4j(double rate, int burst) {
        long perSecond = Math.max(1L, Math.round(rate));
        return Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(burst).refillGreedy(perSecond, Duration.ofSeconds(1)).build())
                .build();
    }

    static com.google.common.util.concurrent.RateLimiter guava(double rate) {
        return com.google.common.util.concurrent.RateLimiter.create(rate);
    }

    static AtomicRateLimiter resilience4j(double rate) {
        int perSecond = (int) Math.min(Integer.MAX_VALUE, Math.max(1L, Math.round(rate)));
        RateLimiterConfig config = RateLimiterConfig.custom()
                .limitForPeriod(perSecond)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build();
        return new AtomicRateLimiter("bench", config);
    }

    /** Bucket4j buckets keyed in a Caffeine cache, as its documentation suggests for per-key limits. */
    static final class Bucket4jCaffeine {
        private final Cache<String, Bucket> cache =
                Caffeine.newBuilder().expireAfterAccess(Duration.ofMinutes(10)).build();
        private final Function<String, Bucket> factory;

        Bucket4jCaffeine(double rate, int burst) {
            this.factory = k -> bucket4j(rate, burst);
        }

        boolean tryAcquire(String key) {
            return cache.get(key, factory).tryConsume(1);
        }

        long size() {
            cache.cleanUp();
            return cache.estimatedSize();
        }
    }

    /** Bucket4j buckets keyed in a ConcurrentHashMap. */
    static final class Bucket4jMap {
        private final ConcurrentHashMap<String, Bucket> map = new ConcurrentHashMap<>();
        private final Function<String, Bucket> factory;

        Bucket4jMap(double rate, int burst) {
            this.factory = k -> bucket4j(rate, burst);
        }

        boolean tryAcquire(String key) {
            Bucket bucket = map.get(key);
            if (bucket == null) {
                bucket = map.computeIfAbsent(key, factory);
            }
            return bucket.tryConsume(1);
        }

        int size() {
            return map.size();
        }
    }
}

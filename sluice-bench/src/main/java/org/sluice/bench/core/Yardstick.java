package org.sluice.bench.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.core.Clock;

/**
 * The obvious keyed GCRA limiter, written here as a yardstick: a
 * {@code ConcurrentHashMap<String, AtomicLong>} of theoretical arrival times and one
 * compare-and-swap per charge. Sluice's table must beat this, not only Bucket4j. It reads
 * {@link System#nanoTime()} unless given another clock (the opt-in ticking clock, so that
 * Sluice with that clock can be put beside the yardstick with the same one).
 */
final class Yardstick {

    private final ConcurrentHashMap<String, AtomicLong> tats = new ConcurrentHashMap<>();
    private final long interval;
    private final long tolerance;
    private final Clock clock;

    Yardstick(double rate, int burst) {
        this(rate, burst, Clock.system());
    }

    Yardstick(double rate, int burst, Clock clock) {
        this.clock = clock;
        this.interval = Math.max(1L, Math.round(1e9 / rate));
        this.tolerance = interval * burst;
    }

    boolean tryAcquire(String key) {
        long now = clock.nanoTime();
        AtomicLong tat = tats.get(key);
        if (tat == null) {
            tat = tats.computeIfAbsent(key, k -> new AtomicLong(Long.MIN_VALUE / 2));
        }
        while (true) {
            long current = tat.get();
            long next = Math.max(current, now) + interval;
            if (next - now > tolerance) {
                return false;
            }
            if (tat.compareAndSet(current, next)) {
                return true;
            }
        }
    }

    int size() {
        return tats.size();
    }
}

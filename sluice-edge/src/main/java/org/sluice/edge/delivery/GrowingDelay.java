package org.sluice.edge.delivery;

import java.util.List;

/**
 * The rule both of delivery's growing waits follow: a first wait and the cap it grows to,
 * each at least 1 ms, the cap no shorter than the first (retry's {@code initial_ms} and
 * {@code max_ms}, the breaker's {@code open_ms} and {@code max_open_ms}).
 */
final class GrowingDelay {

    private GrowingDelay() {
    }

    /**
     * Adds to {@code problems} what is wrong with {@code first} and {@code cap}, read from the
     * keys {@code at + firstKey} and {@code at + capKey}.
     */
    static void check(List<String> problems, String at, String firstKey, long first, String capKey, long cap) {
        if (first < 1) {
            problems.add(at + firstKey + " must be an integer of at least 1, got " + first);
        }
        if (cap < 1) {
            problems.add(at + capKey + " must be an integer of at least 1, got " + cap);
        } else if (first >= 1 && cap < first) {
            problems.add(at + capKey + " must be at least " + at + firstKey + " (" + first + "), got " + cap);
        }
    }
}
